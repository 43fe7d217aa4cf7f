/** The executor seam: the manager only ever talks to these interfaces, so a remote or sandboxed executor can slot in. */

import type { SandboxPolicy } from '../sandbox/policy.js';
import type { Disposable } from '../util/listeners.js';

export type { Disposable };

/** How a process ended. Exit is data, not an exception. */
export interface ExitInfo {
  /** Shell convention: 128 + signal number when killed by a signal. */
  exitCode: number;
  /** Signal name (e.g. `SIGKILL`) when the process was killed by one. */
  signal?: string;
}

export interface SpawnOptions {
  /** argv[0] is the program; it is looked up in PATH when it has no slash. */
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** true: pseudo-terminal (stdin open, stdout+stderr merged); false: pipes with stdin at /dev/null. */
  tty: boolean;
  cols?: number;
  rows?: number;
  /** Run inside this sandbox (absent or danger-full-access: unsandboxed). */
  sandbox?: SandboxPolicy;
  /** Set by the executor for a wrapped command: see TerminalHandle.supervisorDepth. */
  supervisorDepth?: number;
}

/** What a tty process offers beyond the basics; input-wait detection is built on it. */
export interface TerminalHandle {
  /** The slave side, e.g. /dev/pts/3: a program reading this is reading its terminal. */
  readonly path: string;
  /** Resolves once every byte written to the terminal before the call has been delivered to onData. */
  flushOutput(): Promise<void>;
  /** Canonical mode and echo of the terminal now, or undefined when they cannot be read. */
  localModes(): { canonical: boolean; echo: boolean } | undefined;
  /**
   * How many levels of the tree, from the leader down, are a wrapper that only relays (the sandbox's bubblewrap
   * and its init): they never read the terminal, and input-wait looks past them. 0 or absent: none.
   */
  readonly supervisorDepth?: number;
}

export interface ExecProcess {
  readonly pid: number;
  readonly tty: boolean;
  /** Present for pseudo-terminal processes on a local executor. */
  readonly terminal?: TerminalHandle;
  /** Set once the process has exited and every byte it wrote before exiting has been delivered to onData. */
  readonly exitInfo: ExitInfo | undefined;
  /** Output bytes in arrival order. A chunk may arrive after exit (a grandchild still holding the terminal). */
  onData(listener: (chunk: Buffer) => void): Disposable;
  /** Fires once, after all output written before the exit has gone to onData listeners. */
  onExit(listener: (info: ExitInfo) => void): Disposable;
  /**
   * Queues input; resolves when every byte has been handed to the kernel, which a program that does not read never
   * lets happen. Rejects on pipes (stdin is /dev/null) and, for queued bytes, when the process ends.
   */
  write(data: string | Uint8Array): Promise<void>;
  /** Input bytes written but not yet taken by the terminal (absent: never any). */
  readonly pendingInputBytes?: number;
  resize(cols: number, rows: number): void;
  /** Ends the whole process tree (SIGTERM, grace, SIGKILL) and releases every fd. Safe to call twice. */
  terminate(): Promise<void>;
}

/** Told when a session leader starts and when its whole tree has been ended. */
export interface LifetimeHooks {
  /** `tag` is the value of UNIFIED_EXEC_TAG in the session's environment. */
  started(pid: number, tag: string): void;
  ended(pid: number): void;
}

export interface Executor {
  /** Throws (synchronously) when the process cannot be started at all. */
  spawn(options: SpawnOptions): ExecProcess;
  /** Gets ready to spawn with these options (e.g. starts the sandbox's allowlist proxy); awaited before `spawn`. */
  prepare?(options: SpawnOptions): Promise<void>;
}
