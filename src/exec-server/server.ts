/**
 * `unified-exec exec-server`: a server of Codex's exec-server protocol (EXEC-SERVER.md, observed on codex-cli
 * 0.169.0; 0.171.0 checked against it, see protocol.ts) built on our process layer, so a Codex CLI pointed at it
 * (`CODEX_EXEC_SERVER_URL`) runs its commands here. The core is transport-agnostic: `connect(transport)` takes
 * anything that can send a text and be closed; ws-transport.ts and stdio-transport.ts carry it over WebSocket and
 * stdin/stdout.
 *
 * Where it differs from the real server, on purpose:
 * - Requests on one connection run concurrently: a long-polling `process/read` holds up nothing (the real server's
 *   default `--concurrent-requests 1` answers the next request only after it).
 * - A bad message never drops the connection: an unexpected notification or a response-shaped message is ignored
 *   (logged to stderr); an unparsable one gets a -32600 error with id -1. A WebSocket frame over 16 MiB is refused
 *   by the WebSocket layer (ws `maxPayload`), which closes that connection, as the real server does.
 * - Limits: at most `maxProcessesPerSession` (256) processes not yet closed per exec-server session and
 *   `maxProcesses` (1024) across the server, `maxExecServerSessions` (64) sessions attached or detached (the longest-detached
 *   one is ended to make room; with none detached a new one is refused); over a limit, -32600 saying which.
 * - A resume of a session still attached to another connection pings that connection first: one that does not
 *   answer within a second (its link was cut and this side has not noticed yet) is closed and the session moves to
 *   the new one; a live one keeps it (-32010, as Codex's server answers).
 * - `process/terminate` ends the whole tree with our process layer: SIGTERM, a 250 ms grace, SIGKILL, and
 *   escapees found by their tag (a `setsid` child included), so a pipes process usually reports 143, not 137.
 * - Every process runs with our watchdog: a `kill -9` of the server still ends them. Its environment carries our
 *   process tag (UNIFIED_EXEC_TAG), which is how escaped children are found; `env` is otherwise exact.
 * - `sandbox` is enforced with our bubblewrap sandbox (SandboxPolicy, see sandbox-wire.ts) and answered as
 *   `linuxSeccomp`, the value Codex's client knows for the Linux sandbox; the fs methods ignore `sandbox`.
 * - Extensions, invisible to a Codex client: `unifiedExec` in `initialize`, `pid` and `cols`/`rows` on
 *   `process/start`, `process/resize`, `signal` on exits, `waitingForInput`/`secretPrompt` on reads, and the
 *   `process/inputWait` notification for clients that ask (protocol.ts).
 * - Not implemented (-32601): `fs/open`/`readBlock`/`writeBlock`/`close`/`walk`/`watchMissing`, `http/request`,
 *   `environmentConfig/read`, `capabilities/discoverV2`. A Codex client runs commands without them.
 */

import { readFileSync } from 'node:fs';
import { InputWaitPolicy } from '../input-wait/policy.js';
import type { ReturnPolicy } from '../input-wait/return-policy.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { ProcessSpawner } from '../spawn/types.js';
import { ClientConnection, type Transport } from './client-connection.js';
import { environmentInfo } from './environment-info.js';
import {
  MAX_PROCESSES,
  MAX_PROCESSES_PER_SESSION,
  MAX_RETAINED_PER_SESSION,
  MAX_SESSIONS,
  RETENTION_MS,
  SESSION_GRACE_MS,
} from './limits.js';
import { SESSION_ATTACHED, type EnvironmentInfo } from './protocol.js';
import { RpcError, invalidRequest } from './rpc-error.js';
import { ExecServerSession, type SessionHost, type SessionSink } from './session.js';

export type { Transport };

/** How long the connection holding a session has to answer a ping when another asks to resume that session. */
const CONTESTED_RESUME_PING_MS = 1_000;

export interface ExecServerOptions {
  /** Where processes run; default a LocalExecutor (watchdog on). */
  executor?: ProcessSpawner;
  /** Input-wait detection for `process/inputWait`; default InputWaitPolicy. */
  inputWaitPolicy?: InputWaitPolicy;
  /** How long a detached session stays resumable, in ms (default 80 s). */
  sessionGraceMs?: number;
  /** How long a closed process stays readable, in ms (default 80 s). */
  retentionMs?: number;
  /** Output retained per process, in bytes (default 1 MiB). */
  retainedBytesPerProcess?: number;
  maxProcessesPerSession?: number;
  maxProcesses?: number;
  /** Exec-server sessions held, attached or detached (default 64); not the manager's `maxSessions` of exec sessions. */
  maxExecServerSessions?: number;
  maxRetainedPerSession?: number;
  /** The environment `envPolicy` builds from; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Reported as the environment's working directory; default process.cwd(). */
  cwd?: string;
  /** Reported in `initialize`; default package.json's. */
  version?: string;
  /** One line of log; default stderr. */
  log?: (line: string) => void;
}

/** From package.json, two levels up from both src/exec-server/ and dist/exec-server/. */
function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

/** The exec-server: its sessions, their processes, and the connections to it. */
export class ExecServer implements SessionHost {
  readonly executor: ProcessSpawner;
  readonly serverEnv: Readonly<Record<string, string | undefined>>;
  readonly inputWaitPolicy: ReturnPolicy | undefined;
  readonly inputWaitSupported: boolean;
  readonly graceMs: number;
  readonly retentionMs: number;
  readonly retainedBytes: number | undefined;
  readonly maxProcessesPerSession: number;
  readonly maxProcesses: number;
  readonly maxRetainedPerSession: number;
  readonly version: string;
  private readonly maxExecServerSessions: number;
  private readonly cwd: string;
  private readonly logLine: (line: string) => void;
  private readonly sessions = new Map<string, ExecServerSession>();
  private readonly connections = new Set<ClientConnection>();
  private closing: Promise<void> | undefined;

  constructor(options: ExecServerOptions = {}) {
    this.executor = options.executor ?? new LocalExecutor();
    const policy = options.inputWaitPolicy ?? new InputWaitPolicy();
    this.inputWaitSupported = policy.supported;
    this.inputWaitPolicy = policy.supported ? policy : undefined;
    this.serverEnv = options.env ?? process.env;
    this.cwd = options.cwd ?? process.cwd();
    this.graceMs = options.sessionGraceMs ?? SESSION_GRACE_MS;
    this.retentionMs = options.retentionMs ?? RETENTION_MS;
    this.retainedBytes = options.retainedBytesPerProcess;
    this.maxProcessesPerSession = options.maxProcessesPerSession ?? MAX_PROCESSES_PER_SESSION;
    this.maxProcesses = options.maxProcesses ?? MAX_PROCESSES;
    this.maxExecServerSessions = options.maxExecServerSessions ?? MAX_SESSIONS;
    this.maxRetainedPerSession = options.maxRetainedPerSession ?? MAX_RETAINED_PER_SESSION;
    this.version = options.version ?? packageVersion();
    this.logLine = options.log ?? ((line) => process.stderr.write(`unified-exec exec-server: ${line}\n`));
  }

  /**
   * A new client on `transport`. Feed it each incoming message with `receive(text)` and call `closed()` when the
   * transport ends.
   */
  connect(transport: Transport): { receive(text: string): void; closed(): void } {
    const connection: ClientConnection = new ClientConnection(transport, {
      openSession: (sink, resumeId) => this.openSession(sink, resumeId),
      environmentInfo: () => this.environmentInfo(),
      version: this.version,
      inputWaitSupported: this.inputWaitSupported,
      log: (line) => this.log(line),
    });
    if (this.closing) {
      transport.close();
    } else {
      this.connections.add(connection);
    }
    return {
      receive: (text) => connection.receive(text),
      closed: () => {
        this.connections.delete(connection);
        connection.closed();
      },
    };
  }

  /** Sessions held now, attached or detached. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  liveProcesses(): number {
    let live = 0;
    for (const session of this.sessions.values()) live += session.liveCount;
    return live;
  }

  ended(session: ExecServerSession): void {
    this.sessions.delete(session.id);
  }

  environmentInfo(): EnvironmentInfo {
    return environmentInfo(this.serverEnv, this.cwd);
  }

  log(line: string): void {
    this.logLine(line);
  }

  /** Closes every connection and ends every session's processes. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const connection of this.connections) connection.close();
      this.connections.clear();
      await Promise.all([...this.sessions.values()].map((session) => session.end()));
    })();
    return this.closing;
  }

  private openSession(sink: SessionSink, resumeId: string | undefined): ExecServerSession | Promise<ExecServerSession> {
    if (this.closing) throw invalidRequest('the exec-server is shutting down');
    if (resumeId !== undefined) {
      const session = this.sessions.get(resumeId);
      if (session === undefined) throw invalidRequest(`unknown session id ${resumeId}`);
      const holder = session.attachedSink;
      if (holder === undefined) {
        session.attach(sink);
        return session;
      }
      return this.takeOver(session, holder, sink);
    }
    if (this.sessions.size >= this.maxExecServerSessions) this.endLongestDetached();
    const session = new ExecServerSession(this);
    this.sessions.set(session.id, session);
    session.attach(sink);
    return session;
  }

  /**
   * A client whose link was cut comes back before this side has noticed: its old connection still looks open. If
   * that one no longer answers a ping it is dead, and the resume takes the session over; a live holder keeps it, as
   * on Codex's server.
   */
  private async takeOver(
    session: ExecServerSession,
    holder: SessionSink,
    sink: SessionSink,
  ): Promise<ExecServerSession> {
    const attached = () =>
      new RpcError(SESSION_ATTACHED, `session ${session.id} is already attached to another connection`);
    if (await holder.isAlive(CONTESTED_RESUME_PING_MS)) throw attached();
    if (session.attachedSink === holder) {
      this.log(`session ${session.id}: its connection stopped answering; resumed on a new one`);
      holder.close();
    }
    if (session.attachedSink !== undefined) throw attached(); // another resume got there first
    session.attach(sink);
    return session;
  }

  private endLongestDetached(): void {
    let oldest: ExecServerSession | undefined;
    for (const session of this.sessions.values()) {
      if (session.detachedAt !== undefined && (oldest === undefined || session.detachedAt < oldest.detachedAt!)) {
        oldest = session;
      }
    }
    if (oldest === undefined) {
      throw invalidRequest(
        `too many exec-server sessions: ${this.sessions.size} are attached (the limit is ${this.maxExecServerSessions})`,
      );
    }
    this.log(`session ${oldest.id} ended early: ${this.maxExecServerSessions} sessions are held, the limit`);
    void oldest.end();
  }
}
