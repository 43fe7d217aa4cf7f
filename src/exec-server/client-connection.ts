import {
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  NOTIFICATIONS,
  UNPARSABLE_MESSAGE_ID,
  encodeOutputFrame,
  fitsOutputFrame,
  type EnvironmentInfo,
  type OutputFrame,
  type InitializeResult,
  type RequestId,
} from './protocol.js';
import { RpcError, invalidRequest } from './rpc-error.js';
import { AfterReply, METHOD_TABLE } from './methods.js';
import { initializeParams } from './schemas.js';
import type { ExecServerSession, SessionSink } from './session.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../util/json-depth.js';

/** One client's byte pipe: a WebSocket, or stdin/stdout. */
export interface Transport {
  /** Sends one message (a JSON text); a no-op once the transport is closed. */
  send(text: string): void;
  /** Sends one binary message (an OutputFrame); absent where the transport has none (stdio's lines). */
  sendBinary?(bytes: Buffer): void;
  /** Ends the connection. */
  close(): void;
  /** Names the connection in messages and logs: `websocket 127.0.0.1:40312`, `stdio`. */
  readonly label: string;
  /**
   * Whether the peer still answers (a WebSocket ping answered within `timeoutMs`). A cut link sends no error, so a
   * connection can look open long after its client has gone. Absent: always taken as alive.
   */
  isAlive?(timeoutMs: number): Promise<boolean>;
}

/** What a connection needs from the server. */
export interface ConnectionHost {
  /** Makes a new session, or resumes `resumeSessionId`, attached to `sink`; throws the RpcError to answer. */
  openSession(sink: SessionSink, resumeSessionId: string | undefined): ExecServerSession | Promise<ExecServerSession>;
  environmentInfo(): EnvironmentInfo;
  readonly version: string;
  /** Input-wait detection works on this machine. */
  readonly inputWaitSupported: boolean;
  log(line: string): void;
}

type Phase = 'new' | 'initializing' | 'initialized' | 'ready';

/**
 * The server's side of one client's connection: parses messages, gates methods on the handshake, runs requests concurrently (a long poll
 * holds up nothing), and carries its session's notifications while attached. A bad message never ends it: an
 * unparsable one gets a -32600 with id -1, an unexpected notification or a response-shaped message is logged and
 * ignored.
 */
export class ClientConnection implements SessionSink {
  private phase: Phase = 'new';
  private session: ExecServerSession | undefined;
  private closedAlready = false;
  private initializedEarly = false;
  inputWait = false;
  /** The client asked for binary output frames and the transport has them; on from the initialize answer. */
  private binaryAsked = false;
  private binaryOutput = false;

  constructor(
    private readonly transport: Transport,
    private readonly host: ConnectionHost,
  ) {}

  get label(): string {
    return this.transport.label;
  }

  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  output(chunks: readonly OutputFrame[]): void {
    if (this.closedAlready) return;
    if (!this.binaryOutput || !chunks.every(fitsOutputFrame)) {
      for (const { processId, seq, stream, bytes } of chunks) {
        this.notify(NOTIFICATIONS.processOutput, { processId, seq, stream, chunk: bytes.toString('base64') });
      }
      return;
    }
    // A read's chunks share a frame, sent at once. Holding a flood's frames for a millisecond, so that its reads
    // shared a write, cost a fifth of its rate (docs/benchmarks.md, "Run BM"); holding them to the end of the event
    // loop's turn gained nothing, as a turn reads a terminal once.
    this.transport.sendBinary!(encodeOutputFrame(chunks));
  }

  /** One incoming message (a WebSocket frame, a line on stdin). */
  receive(text: string): void {
    // JSON.parse is slow on deep nesting (a microsecond a level): refused before it runs.
    if (nestsDeeperThan(text)) return this.unparsable(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return this.unparsable((error as Error).message);
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return this.unparsable('expected a JSON-RPC object');
    }
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string') {
      if (id !== undefined && ('result' in message || 'error' in message)) {
        return this.host.log(`${this.label}: ignored a response-shaped message (id ${JSON.stringify(id)})`);
      }
      return this.unparsable('expected a `method` string or a response');
    }
    if (id === undefined) return this.notification(method);
    if (typeof id !== 'number' && typeof id !== 'string') {
      return this.unparsable('`id` must be a number or a string');
    }
    void this.request(id, method, params);
  }

  /** The transport went away: detach the session, which lives on for its grace period. */
  closed(): void {
    if (this.closedAlready) return;
    this.closedAlready = true;
    if (this.session?.attachedSink === this) this.session.detach();
  }

  /** Ends the connection from our side. */
  close(): void {
    this.transport.close();
    this.closed();
  }

  async isAlive(timeoutMs: number): Promise<boolean> {
    if (this.closedAlready) return false;
    return (await this.transport.isAlive?.(timeoutMs)) ?? true;
  }

  private notification(method: string): void {
    if (method === 'initialized') {
      if (this.phase === 'initialized') this.phase = 'ready';
      // Sent before a contested resume has been decided: it counts once initialize succeeds.
      if (this.phase === 'initializing') this.initializedEarly = true;
      return;
    }
    this.host.log(`${this.label}: ignored an unexpected notification \`${method}\``);
  }

  private async request(id: RequestId, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.dispatch(method, params);
      if (result instanceof AfterReply) {
        this.send({ id, result: result.result });
        result.afterSent();
      } else {
        this.send({ id, result });
      }
    } catch (error) {
      if (!(error instanceof RpcError)) this.host.log(`${this.label}: ${method} failed: ${String(error)}`);
      const code = error instanceof RpcError ? error.code : INTERNAL_ERROR;
      const data = error instanceof RpcError && error.data !== undefined ? { data: error.data } : {};
      // Members in the real server's order: code, data, message.
      this.send({ error: { code, ...data, message: (error as Error)?.message ?? String(error) }, id });
    }
  }

  private async dispatch(method: string, params: unknown): Promise<unknown> {
    if (method === 'initialize') return this.initialize(params);
    const entry = METHOD_TABLE[method];
    if (entry === undefined) {
      throw new RpcError(METHOD_NOT_FOUND, `unified-exec exec-server does not implement \`${method}\``);
    }
    if (this.phase === 'new' || this.phase === 'initializing') {
      throw invalidRequest(`client must call initialize before using ${entry.gate} methods`);
    }
    if (this.phase === 'initialized') {
      throw invalidRequest(`client must send initialized before using ${entry.gate} methods`);
    }
    return entry.run(params, { session: this.session!, environmentInfo: () => this.host.environmentInfo() });
  }

  /**
   * Synchronous unless the session to resume is held by another connection (which is pinged first): requests sent
   * right behind the initialize, pipelined, then find the handshake done.
   */
  private initialize(raw: unknown): InitializeResult | Promise<InitializeResult> {
    if (this.phase !== 'new') throw invalidRequest('initialize may only be sent once per connection');
    const params = initializeParams(raw);
    this.phase = 'initializing';
    const failed = (error: unknown): never => {
      this.phase = 'new'; // a failed initialize does not count
      throw error;
    };
    let opened: ExecServerSession | Promise<ExecServerSession>;
    try {
      this.inputWait = params.unifiedExec?.inputWait === true && this.host.inputWaitSupported;
      this.binaryAsked = params.unifiedExec?.binaryOutput === true && this.transport.sendBinary !== undefined;
      opened = this.host.openSession(this, params.resumeSessionId);
    } catch (error) {
      return failed(error);
    }
    return opened instanceof Promise ? opened.then((session) => this.opened(session), failed) : this.opened(opened);
  }

  private opened(session: ExecServerSession): InitializeResult {
    this.session = session;
    this.phase = this.initializedEarly ? 'ready' : 'initialized';
    if (this.closedAlready) session.detach();
    // Output sent before this goes as JSON; the answer goes out before any I/O can bring more.
    this.binaryOutput = this.binaryAsked;
    return {
      sessionId: session.id,
      environmentInfo: this.host.environmentInfo(),
      unifiedExec: {
        version: this.host.version,
        inputWait: this.host.inputWaitSupported,
        resize: true,
        ...(this.binaryOutput ? { binaryOutput: true } : {}),
      },
    };
  }

  private unparsable(detail: string): void {
    this.send({
      error: {
        code: INVALID_REQUEST,
        message: `failed to parse JSON-RPC message from unified-exec exec-server ${this.label}: ${detail}`,
      },
      id: UNPARSABLE_MESSAGE_ID,
    });
  }

  private send(message: object): void {
    if (this.closedAlready) return;
    this.transport.send(JSON.stringify(message));
  }
}
