import type { ApprovalHandler } from '../approval/policy.js';
import type { SandboxDenial } from '../sandbox/denial.js';
import type { Executor } from '../spawn/types.js';
import type { ReturnPolicy } from '../input-wait/return-policy.js';
import type { SessionBudget } from './budget.js';
import type { ManagerSettings } from './settings.js';

export type { ExecCommandRequest, WriteStdinRequest } from './requests.js';

export type SessionState = 'exited' | 'waiting_for_input' | 'running';

/** A terminal's screen as a reply shows it: what a person would see. */
export interface ScreenView {
  cols: number;
  rows: number;
  /** Every row's text, top to bottom, without trailing spaces. */
  lines: string[];
  /** Zero-based. */
  cursor: { row: number; col: number };
  /** A full-screen program (vim, less, top) is in the alternate screen. */
  alternate: boolean;
  /**
   * The output since the last reply addressed the cursor outside the alternate screen: a program drawing on the
   * normal screen (vim under TERM=dumb). See src/screen/cursor-address.ts.
   */
  cursorAddressed: boolean;
}

export interface ExecResponse {
  /** 6 lowercase hex characters naming this response. */
  chunkId: string;
  wallTimeSeconds: number;
  /** What the program printed during the call, truncated for the model. */
  output: string;
  /** ceil(bytes / 4) of everything printed during the call, dropped bytes included. */
  originalTokenCount: number;
  /**
   * Present when the process has exited (and the session is gone). A death by signal n reads 128 + n, except in a
   * terminal, where it reads 1 as in Codex; `signal` names the signal either way.
   */
  exitCode?: number;
  /** The signal that ended the process, when one did (`SIGINT`, `SIGKILL`). */
  signal?: string;
  /** Present while the process still runs. */
  sessionId?: number;
  state: SessionState;
  /** The terminal has echo off in canonical mode: a password prompt. */
  secretPrompt?: boolean;
  /** Lines for the model, e.g. the 60-session warning. */
  warnings: string[];
  /**
   * The terminal's screen: while a full-screen program is in the alternate screen or when the output since the last
   * reply addressed the cursor (unless the call said `screen: false`), or always when it said `screen: true`.
   */
  screen?: ScreenView;
  /** The process failed because the sandbox refused something (a write, a connection); a warning line says so. */
  sandboxDenial?: SandboxDenial;
  /**
   * The command was an apply_patch invocation, applied by the manager rather than run in a shell (no session); the
   * reply reads as Codex's apply_patch does. `durationMs`: how long applying took.
   */
  patch?: { durationMs: number };
}

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
}

export interface SessionInfo {
  sessionId: number;
  command: string;
  tty: boolean;
  /** The session leader's pid on this machine; absent when the session runs elsewhere. */
  pid?: number;
  startedAt: Date;
  lastUsedAt: Date;
  /** The name of the executor it runs on (`local` unless the server names others). */
  executor: string;
  /** Where that is: `local`, `ws://10.0.0.2:8700`, `docker://web-1`. */
  location: string;
  exited: boolean;
  exitCode?: number;
  bufferedBytes: number;
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
