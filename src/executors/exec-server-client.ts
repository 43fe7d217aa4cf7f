import type { ClientRequest, IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import {
  INVALID_REQUEST,
  EXEC_SERVER_MAX_MESSAGE_BYTES,
  METHODS,
  decodeOutputFrame,
  type InitializeResult,
  type JsonRpcErrorObject,
  type OutputFrame,
} from '../exec-server/protocol.js';
import { messageBytes } from '../net/ws-data.js';
import { loadWs } from '../net/ws-module.js';
import type { InitializeParams } from '../exec-server/schemas.js';

/** What a process registered with the connection is told. */
export interface ProcessSink {
  /** A notification for this process (`process/output`, `process/exited`, `process/closed`, `process/inputWait`). */
  notify(method: string, params: Record<string, unknown>): void;
  /** A chunk of output that came as a binary frame (the same as a `process/output` notification). */
  output(frame: OutputFrame): void;
  /**
   * The connection dropped: what the server says next (on the next connection) may come before what it said while
   * nobody listened, which `resumed` reads.
   */
  disconnected(): void;
  /** The connection came back and the exec-server session was resumed: read what was missed. */
  resumed(): void;
  /** The exec-server is gone for good: end with this reason. */
  lost(reason: string): void;
}

export interface ExecServerClientOptions {
  url: string;
  /** Bearer token for a server started with one. */
  token?: string;
  /** How long to keep trying to reach a server that went away before its sessions are given up. Default 30 s. */
  giveUpAfterMs?: number;
  /** How often to check that a quiet connection is alive (a cut link sends no error). Default 5 s. */
  pingIntervalMs?: number;
  /** How long one connection attempt (TCP, WebSocket handshake, initialize) may take. Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Ask for output as binary WebSocket frames (default true): our exec-server then sends each chunk's bytes as they
   * are, Codex's answers without the field and sends base64 JSON. false: every message JSON, as Codex's clients.
   */
  binaryOutput?: boolean;
}

/** A JSON-RPC error answered by the server. */
class ExecServerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  method: string;
  params: unknown;
  resolve(result: unknown): void;
  reject(error: Error): void;
  /** The id it was last sent with, on the connection that is open now; undefined while waiting to be (re)sent. */
  sentAs?: number;
}

const DEFAULT_GIVE_UP_MS = 30_000;
const DEFAULT_PING_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const MAX_BACKOFF_MS = 2_000;

/**
 * Our client of one exec-server (ours or Codex's): one connection at a time, shared by every process an executor runs there. It
 * connects on first use and initializes; when the connection drops (a server restart, a cut link noticed by a missed
 * ping) it reconnects and resumes the same exec-server session, re-sends what had no answer (writes carry a
 * writeId, so a resent write is not typed twice) and lets each process read what it missed from its last seq. A
 * server that stays unreachable for `giveUpAfterMs` loses its processes, each told why.
 */
export class ExecServerClient {
  private socket: WebSocket | undefined;
  private opening: Promise<void> | undefined;
  private info: InitializeResult | undefined;
  private nextId = 1;
  private readonly pending = new Set<Pending>();
  private readonly byId = new Map<number, Pending>();
  private readonly processes = new Map<string, ProcessSink>();
  private reconnecting: Promise<void> | undefined;
  private closed = false;
  private resumedCount = 0;
  private lostReason: string | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly giveUpAfterMs: number;
  private readonly pingIntervalMs: number;
  private readonly connectTimeoutMs: number;

  constructor(private readonly options: ExecServerClientOptions) {
    this.giveUpAfterMs = options.giveUpAfterMs ?? DEFAULT_GIVE_UP_MS;
    this.pingIntervalMs = options.pingIntervalMs ?? DEFAULT_PING_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  get url(): string {
    return this.options.url;
  }

  /** How many times the connection dropped and the same exec-server session was resumed. */
  get reconnections(): number {
    return this.resumedCount;
  }

  /** What the server said at initialize; undefined before the first connection. */
  get serverInfo(): InitializeResult | undefined {
    return this.info;
  }

  /** Connects and initializes if not yet done; rejects with the reason when the server cannot be reached. */
  async ready(): Promise<InitializeResult> {
    if (this.closed) throw new Error(`the connection to the exec-server at ${this.url} is closed`);
    if (this.reconnecting) await this.reconnecting;
    // A server given up on may be back: a new call starts a new exec-server session there.
    this.lostReason = undefined;
    if (!this.socket) {
      this.opening ??= this.open(undefined).finally(() => (this.opening = undefined));
      await this.opening;
    }
    return this.info!;
  }

  register(processId: string, sink: ProcessSink): void {
    this.processes.set(processId, sink);
  }

  unregister(processId: string): void {
    this.processes.delete(processId);
  }

  /** Sends a request and resolves with its result; across a reconnection it is sent again. */
  request<R>(method: string, params: unknown): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`the connection to the exec-server at ${this.url} is closed`));
    if (this.lostReason) return Promise.reject(new Error(this.lostReason));
    return new Promise<R>((resolve, reject) => {
      const entry: Pending = { method, params, resolve: resolve as (r: unknown) => void, reject };
      this.pending.add(entry);
      this.send(entry);
    });
  }

  /** Ends the connection; requests still waiting are refused. Processes on the server are not ended by this. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    this.failPending(new Error(`the connection to the exec-server at ${this.url} was closed`));
    this.socket?.terminate();
    this.socket = undefined;
  }

  private send(entry: Pending): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) return; // sent once reconnected
    const id = this.nextId++;
    entry.sentAs = id;
    this.byId.set(id, entry);
    socket.send(JSON.stringify({ id, method: entry.method, params: entry.params }));
  }

  /** One connection attempt: WebSocket, then initialize (resuming `sessionId` when given). */
  private async open(resumeSessionId: string | undefined): Promise<void> {
    const headers = this.options.token ? { Authorization: `Bearer ${this.options.token}` } : undefined;
    const { WebSocket } = await loadWs();
    const socket = new WebSocket(this.url, {
      ...(headers ? { headers } : {}),
      handshakeTimeout: this.connectTimeoutMs,
      maxPayload: EXEC_SERVER_MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => {
        socket.terminate();
        reject(new Error(`cannot reach the exec-server at ${this.url}: ${describeSocketError(error)}`));
      };
      socket.once('open', () => {
        socket.off('error', failed);
        socket.off('unexpected-response', refused);
        resolve();
      });
      socket.once('error', failed);
      const refused = (_req: ClientRequest, res: IncomingMessage) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => {
          socket.terminate();
          const said = body.trim() || res.statusMessage || '';
          reject(new Error(`the exec-server at ${this.url} refused the connection: HTTP ${res.statusCode} ${said}`));
        });
      };
      socket.once('unexpected-response', refused);
    });
    socket.on('error', () => undefined); // 'close' follows and does the work
    const early: [RawData, boolean][] = [];
    let initialized: ((result: InitializeResult) => void) | undefined;
    let initFailed: ((error: Error) => void) | undefined;
    socket.on('message', (data, isBinary) => {
      if (initialized) return this.handleInitMessage(data, isBinary, initialized, initFailed!, early);
      this.receive(data, isBinary);
    });
    const result = await new Promise<InitializeResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.terminate();
        reject(
          new Error(`the exec-server at ${this.url} did not answer initialize within ${this.connectTimeoutMs} ms`),
        );
      }, this.connectTimeoutMs);
      initialized = (r) => {
        clearTimeout(timer);
        resolve(r);
      };
      initFailed = (e) => {
        clearTimeout(timer);
        socket.terminate();
        reject(e);
      };
      socket.once('close', () =>
        initFailed?.(new Error(`the exec-server at ${this.url} closed the connection during initialize`)),
      );
      const params: InitializeParams = {
        clientName: 'unified-exec',
        resumeSessionId: resumeSessionId ?? null,
        unifiedExec: { inputWait: true, ...(this.options.binaryOutput === false ? {} : { binaryOutput: true }) },
      };
      socket.send(JSON.stringify({ id: 0, method: METHODS.initialize, params }));
    });
    initialized = undefined;
    initFailed = undefined;
    socket.send(JSON.stringify({ method: METHODS.initialized, params: {} }));
    this.info = result;
    this.socket = socket;
    socket.on('close', () => this.dropped(socket));
    this.keepAlive(socket);
    for (const [data, isBinary] of early) this.receive(data, isBinary);
  }

  /** During initialize: its answer, or a notification to keep for after. */
  private handleInitMessage(
    data: RawData,
    isBinary: boolean,
    initialized: (result: InitializeResult) => void,
    failed: (error: Error) => void,
    early: [RawData, boolean][],
  ): void {
    let message: { id?: unknown; result?: unknown; error?: JsonRpcErrorObject };
    try {
      message = JSON.parse(data.toString()) as typeof message;
    } catch {
      return;
    }
    if (message.id !== 0) return void early.push([data, isBinary]);
    if (message.error) return failed(new ExecServerError(message.error.code, message.error.message));
    initialized(message.result as InitializeResult);
  }

  /** One message: an output frame where the server said it sends them, else JSON (in a text or a binary frame). */
  private receive(data: RawData, isBinary: boolean): void {
    if (isBinary && this.info?.unifiedExec?.binaryOutput === true) {
      const chunks = decodeOutputFrame(messageBytes(data));
      if (chunks !== undefined) {
        for (const chunk of chunks) this.processes.get(chunk.processId)?.output(chunk);
        return;
      }
    }
    this.handle(data.toString());
  }

  private handle(text: string): void {
    let message: {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: JsonRpcErrorObject;
    };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.method !== undefined) {
      const processId = message.params?.processId;
      if (typeof processId === 'string') this.processes.get(processId)?.notify(message.method, message.params!);
      return;
    }
    if (typeof message.id !== 'number') return;
    const entry = this.byId.get(message.id);
    if (!entry) return;
    this.byId.delete(message.id);
    this.pending.delete(entry);
    if (message.error) entry.reject(new ExecServerError(message.error.code, message.error.message));
    else entry.resolve(message.result);
  }

  /** Pings a quiet connection; no pong by the next ping means the link is gone, even if TCP has not noticed yet. */
  private keepAlive(socket: WebSocket): void {
    let alive = true;
    socket.on('pong', () => (alive = true));
    socket.on('message', () => (alive = true));
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (!alive) return void socket.terminate();
      alive = false;
      socket.ping();
    }, this.pingIntervalMs);
    this.pingTimer.unref();
  }

  private dropped(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    clearInterval(this.pingTimer);
    if (this.closed) return;
    // What was sent on the dead socket is sent again once the session is resumed.
    for (const entry of this.pending) entry.sentAs = undefined;
    this.byId.clear();
    for (const sink of this.processes.values()) sink.disconnected();
    this.reconnecting = this.reconnect().finally(() => (this.reconnecting = undefined));
  }

  private async reconnect(): Promise<void> {
    const sessionId = this.info?.sessionId;
    const since = Date.now();
    let delay = 50;
    let lastError = 'the connection dropped';
    while (!this.closed && Date.now() - since < this.giveUpAfterMs) {
      try {
        await this.open(sessionId);
        break;
      } catch (err) {
        if (err instanceof ExecServerError && err.code === INVALID_REQUEST) {
          // The server is back but no longer has the session (restarted, or kept it past its grace period).
          return this.giveUp(
            `The exec-server at ${this.url} came back without this session (${err.message}): it restarted or held it past its grace period, and ended its processes.`,
          );
        }
        lastError = (err as Error).message;
      }
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(delay, Math.max(0, since + this.giveUpAfterMs - Date.now()))),
      );
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
    if (this.closed) return;
    if (!this.socket) {
      return this.giveUp(
        `Lost the exec-server at ${this.url}: unreachable for ${Math.round(this.giveUpAfterMs / 1000)} s (${lastError}). The session ended; its output up to then is above.`,
      );
    }
    this.resumedCount++;
    for (const entry of this.pending) if (entry.sentAs === undefined) this.send(entry);
    for (const sink of this.processes.values()) sink.resumed();
  }

  private giveUp(reason: string): void {
    this.lostReason = reason;
    this.failPending(new Error(reason));
    const sinks = [...this.processes.values()];
    this.processes.clear();
    for (const sink of sinks) sink.lost(reason);
  }

  private failPending(error: Error): void {
    const entries = [...this.pending];
    this.pending.clear();
    this.byId.clear();
    for (const entry of entries) entry.reject(error);
  }
}

function describeSocketError(error: Error): string {
  const code = (error as { code?: string }).code;
  return code ? `${code} (${error.message})` : error.message;
}
