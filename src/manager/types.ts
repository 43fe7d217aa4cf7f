import type { ApprovalHandler } from '../approval/policy.js';
import type { Executor } from '../spawn/types.js';
import type { ReturnPolicy } from '../input-wait/return-policy.js';
import type { SessionBudget } from './budget.js';
import type { ManagerSettings } from './settings.js';

export type { ExecCommandRequest, WriteStdinRequest } from './requests.js';
export type {
  ClosedSession,
  ExecResponse,
  ExitedExecResponse,
  RunningExecResponse,
  ScreenView,
  SessionInfo,
  SessionState,
} from './replies.js';

/** Per-call options of `execCommand`, `writeStdin` and `shell`, beside the request. */
export interface CallOptions {
  /**
   * Called with the output as it is printed while the call waits: each chunk decoded as UTF-8 (a character split
   * across chunks comes whole, in the later delta), for a caller that shows progress (MCP `notifications/progress`).
   * Nothing is consumed: the reply still holds all the output, truncated as usual; output buffered before the call
   * began is in the reply only. At most MAX_OUTPUT_DELTAS (10 000) calls per call, none once the call has answered;
   * a listener that throws changes nothing for the call. For `shell`, stdout and stderr come in arrival order.
   */
  onOutput?: (text: string) => void;
  /**
   * Aborted when the caller gives up (an MCP client's `notifications/cancelled`, an HTTP connection dropped): the call
   * stops waiting at once and fails with CANCELLED, its session is free for the next call, and everything it had not
   * delivered (output, the exit) stays for that call. A command already started keeps running under its session.
   */
  signal?: AbortSignal;
  /** For the tools' text: add our lines about the session's state (see FormatOptions.stateLines). */
  stateLines?: boolean;
  /**
   * How long the call had already waited before it reached the manager (a server whose manager was still loading
   * when the call came): an `exec_command`'s yield counts it, so the call answers within its yield of its arrival.
   * Its wall time counts it too. Default 0.
   */
  waitedMs?: number;
}

/** Told about a watched session (see UnifiedExecManager.watchSession). */
export interface SessionWatcher {
  /** Each piece of output, as text, as it comes. */
  output(text: string): void;
  /** Once, when the session has stopped running; undefined when its exit status never came. */
  ended(exitCode: number | undefined): void;
}

export interface SessionWatch {
  /** The latest output (up to 64 KiB), read by the model or not; it begins at a line when older output was dropped. */
  recent: string;
  tty: boolean;
  /** The terminal's size (tty sessions). */
  cols: number;
  rows: number;
  /** Stops the watch. */
  dispose(): void;
}

/** Code a caller plugs in, as opposed to settings (which have a CLI flag and a config key too). */
interface ManagerInjections {
  /** How programs are started. Default: this machine (PTY or pipes). */
  executor?: Executor;
  /** Session id generator; ids in use are skipped. Default: random 5-digit numbers. */
  idGenerator?: () => number;
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /** When a live call answers early; overrides the `returnOn` setting. */
  returnPolicy?: ReturnPolicy;
  /** Limits shared with other managers (an HTTP server's clients): live sessions and unread output across all. */
  budget?: SessionBudget;
  /**
   * Asks a person whether a command may run (see `approvalPolicy`). Answer undefined when nobody can be asked: the
   * call is then refused, and the reply says why. Absent: nobody can be asked.
   */
  onApproval?: ApprovalHandler;
}

/** Everything `new UnifiedExecManager(options)` takes: the settings of settings.ts, and the injections. */
export type ManagerOptions = ManagerSettings & ManagerInjections;
