/** The executor seam: the manager only ever talks to these interfaces, so a remote or sandboxed executor can slot in. */

import type { SandboxPolicy } from '../sandbox/policy.js';
import type { Disposable } from '../util/listeners.js';
import type { EnvPolicy } from './env.js';

export type { Disposable };

/** How a process ended. Exit is data, not an exception. */
export interface ExitInfo {
  /** Shell convention: 128 + signal number when killed by a signal. */
  exitCode: number;
  /** Signal name (e.g. `SIGKILL`; `SIG34` for one without a name) when the process was killed by one. */
  signal?: string;
  /**
   * Set when the program's own exit status never came because its executor went away (an exec-server that stayed
   * unreachable, a container that was removed): why, in a sentence for the model. exitCode is then 128 + 9.
   */
  lost?: string;
}

export interface SpawnOptions {
  /** argv[0] is the program; it is looked up in PATH when it has no slash. */
  argv: readonly string[];
  /**
   * The working directory. A local executor gets an absolute, checked path; an executor elsewhere (`local` false)
   * may get a relative path or '' (its own default), which it resolves against its own working directory.
   */
  cwd: string;
  /** The complete environment of the program, built here from `envPolicy`. */
  env: Readonly<Record<string, string>>;
  /**
   * The policy `env` was built from. An executor elsewhere builds the environment from its own (the remote
   * machine's, the container's) with this policy instead of sending this machine's.
   */
  envPolicy?: EnvPolicy;
  /** Pipes only: keep stdin open for `write` (default false: /dev/null). */
  pipeStdin?: boolean;
  /** What the program sees as its argv[0]; argv[0] is still what is executed. */
  arg0?: string;
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

/** What input-wait has to go on for a program whose terminal cannot be read here: its executor's own reports. */
export interface ReportedInputWait {
  /** Taken right before input is written; `watch` after that write only counts reports made after it. */
  mark(): unknown;
  /**
   * Resolves once the executor reports the program waiting for input, every byte it printed before having been
   * delivered to onData; for a `poll` a report still current counts. Resolves undefined when `signal` aborts.
   */
  watch(context: {
    signal: AbortSignal;
    trigger: 'start' | 'input' | 'poll';
    mark?: unknown;
  }): Promise<{ secretPrompt?: boolean } | undefined>;
}

export interface ExecProcess {
  /** The session leader's pid on this machine; undefined when it runs elsewhere (an exec-server, a container). */
  readonly pid: number | undefined;
  readonly tty: boolean;
  /** Present for pseudo-terminal processes on a local executor. */
  readonly terminal?: TerminalHandle;
  /** Present where the executor reports input-wait itself (a unified-exec exec-server). */
  readonly reportedInputWait?: ReportedInputWait;
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
  /**
   * Ctrl-C for a process without a terminal: SIGINT to its process group. Absent where the executor cannot signal
   * it (a tty session gets Ctrl-C typed into its terminal instead).
   */
  interrupt?(): void;
}

/** Told when a session leader starts and when its whole tree has been ended. */
export interface LifetimeHooks {
  /** `tag` is the value of UNIFIED_EXEC_TAG in the session's environment. */
  started(pid: number, tag: string): void;
  ended(pid: number): void;
}

export interface Executor {
  /**
   * Throws (or rejects) when the process cannot be started at all. An executor that answers asynchronously must
   * keep output that arrives before the first onData listener and hand it to that listener.
   */
  spawn(options: SpawnOptions): ExecProcess | Promise<ExecProcess>;
  /** Gets ready to spawn with these options (e.g. starts the sandbox's allowlist proxy); awaited before `spawn`. */
  prepare?(options: SpawnOptions): Promise<void>;
  /**
   * Whether programs run on this machine (default true): only then does the manager check the shell and the
   * working directory itself, and build the environment here.
   */
  readonly local?: boolean;
  /** Where programs run, for people and models: `local`, `ws://10.0.0.2:8700`, `docker://web-1`. */
  readonly location?: string;
  /** How the sandbox policy is enforced: `bubblewrap` here or on an exec-server, `container` when it is the box. */
  readonly isolation?: 'bubblewrap' | 'exec-server' | 'container';
  /** Ends what the executor holds (connections, containers it made); its processes end with it. */
  close?(): Promise<void>;
}
