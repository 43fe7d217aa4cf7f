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
   * The working directory. On this machine an absolute, checked path; elsewhere (an exec-server, a container) a
   * relative path or '' (its own default), which that side resolves against its own working directory.
   */
  cwd: string;
  /** The complete environment of the program (on this machine; elsewhere it is built there from `envPolicy`). */
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
  /**
   * Resolves once every byte written to the terminal before the call has been delivered to onData. `byMarker`: by a
   * marker through the terminal, never by reading it at once (see PtyProcess.flushOutput).
   */
  flushOutput(options?: { byMarker?: boolean }): Promise<void>;
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

/** Which stream output came from; a terminal merges both into `stdout`. */
export type OutputStream = 'stdout' | 'stderr';

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
  /**
   * Output bytes in arrival order, each with the stream it came from (a terminal's is `stdout`). A chunk may arrive
   * after exit (a grandchild still holding the terminal or the pipes). Output that comes before the first listener is
   * kept for it (without limit: subscribe in the tick the process is had), and handed to it before this returns.
   */
  onData(listener: (chunk: Buffer, stream: OutputStream) => void): Disposable;
  /**
   * As onData, but a chunk is the listener's only while it runs: it may be a view of a buffer the process reads its
   * next output into, so a listener that keeps bytes copies them. Spares a copy of every chunk to a listener that
   * keeps a copy of its own anyway (a session's bounded buffers). Optional: without it, use onData.
   */
  onDataView?(listener: (chunk: Buffer, stream: OutputStream) => void): Disposable;
  /** Resolves once no more output can come: every stream at its end, or the process terminated. */
  readonly outputDone: Promise<void>;
  /** Fires once, after all output written before the exit has gone to onData listeners. */
  onExit(listener: (info: ExitInfo) => void): Disposable;
  /**
   * Queues input; resolves when every byte has been handed to the kernel, which a program that does not read never
   * lets happen. Rejects on pipes (stdin is /dev/null) and, for queued bytes, when the process ends.
   */
  write(data: string | Uint8Array): Promise<void>;
  /** Input bytes written but not yet taken by the terminal (absent: never any). */
  readonly pendingInputBytes?: number;
  /** Closes stdin (pipes opened with `stdin`): the program reads end-of-file. Absent where it cannot be closed alone. */
  closeInput?(): void;
  resize(cols: number, rows: number): void;
  /**
   * Ends the whole process tree (SIGTERM, grace, SIGKILL; with `force`, SIGKILL at once) and releases every fd.
   * Safe to call twice: later calls share the first's ending.
   */
  terminate(options?: { force?: boolean }): Promise<void>;
  /**
   * Ctrl-C for a process without a terminal: SIGINT to its process group. Absent where the executor cannot signal
   * it (a tty session gets Ctrl-C typed into its terminal instead).
   */
  interrupt?(): void;
  /**
   * What its sandbox refused it of the network (e.g. `socket(AF_INET) refused`) once it has, printed or not; undefined
   * before. Absent where nobody can tell (no sandbox, the network on, the allowlist, a sandbox elsewhere).
   */
  networkRefusal?(): string | undefined;
}

/** Told when a session leader starts and when its whole tree has been ended. */
export interface LifetimeHooks {
  /** `tag` is the value of UNIFIED_EXEC_TAG in the session's environment. */
  started(pid: number, tag: string): void;
  ended(pid: number): void;
}

/**
 * What to run, as the caller means it: the command, where in the file tree, which environment, a terminal or pipes,
 * which sandbox. Each executor builds the process from it its own way (the local one finds the shell, resolves the
 * directory, builds the environment, takes login snapshots and lays the sandbox; one elsewhere does that on its
 * side).
 */
export interface CommandRequest {
  /** A command line run by `shell` (`-c`, or `-lc` with `login`), or an argv run as is (argv[0] looked up in PATH). */
  command: { script: string; shell: string; login: boolean } | { argv: readonly string[] };
  /** The working directory asked for: absolute, relative to the default, or undefined for the default. */
  workdir: string | undefined;
  /** The default directory of commands on this machine (the manager's `cwd`); an executor elsewhere has its own. */
  defaultWorkdir: string;
  /**
   * The directory's device and inode as approved (CommandPlan.cwdId): the command starts in that directory, held
   * open from the check to the start, and not at all when its path names another by then.
   */
  workdirId?: string;
  /** What the caller calls the working directory, in messages (default `workdir`). */
  workdirName?: string;
  /** Which variables the program inherits and which are set; the session variables are set too. */
  env: EnvPolicy;
  /** true: pseudo-terminal (stdin open, stdout+stderr merged); false: pipes. */
  tty: boolean;
  cols?: number;
  rows?: number;
  /** Pipes only: keep stdin open for `write` (default false: /dev/null). */
  stdin?: boolean;
  /** Run inside this sandbox (absent: unsandboxed). An executor whose programs run in a box of their own may not lay it. */
  sandbox?: SandboxPolicy;
  /** A login command line may run through a snapshot of the login profile, taken once (default false). */
  shellSnapshot?: boolean;
  /**
   * How long a login command line may wait for a snapshot being taken (default 0: not at all; it runs a real login
   * shell beside the capture). The wait is told back (StartedCommand.waitedMs).
   */
  snapshotWaitMs?: number;
  /**
   * Set for a command let out of a sandbox (escalated): see CommandLeaving. Absent: it runs where `sandbox` says,
   * with the environment as built.
   */
  leaving?: CommandLeaving;
}

/**
 * A command let out of `sandbox`, which it asked to leave. Nothing that sandbox let commands write may decide what
 * runs outside it: the executor drops those folders (and relative or empty entries) from the command's PATH, runs
 * the program it resolved there by its path, and runs a command line only with a system shell (listed in
 * /etc/shells, or `configuredShell`; held by root or this user; outside those folders).
 */
interface CommandLeaving {
  sandbox: SandboxPolicy;
  /** The shell the server is configured with (the default of calls that name none). */
  configuredShell: string;
}

/**
 * What a command request will run, as its executor resolved it (the same resolution it starts the command with):
 * what a person approves, and what an approval for the session is remembered by.
 */
export interface CommandPlan {
  /** The argv as it will be executed: argv[0] the program's path where this executor resolved it. */
  argv: readonly string[];
  /** The working directory; '' where an executor elsewhere resolves it on its side. */
  cwd: string;
  /**
   * For a command leaving the sandbox here: the directory's device and inode (`dev:ino`). It starts in that very
   * directory (CommandRequest.workdirId), not in whatever its path names by then.
   */
  cwdId?: string;
  /** The PATH the command starts with, when known here: where the programs a command line names are found. */
  path?: string;
  /** The folders the sandbox being left lets commands write (resolved): what runs from them, the agent may have made. */
  writableRoots?: readonly string[];
  /** For a command leaving the sandbox here: the GIT_LOCATION_VARIABLES and HOME its environment sets. */
  gitEnv?: Readonly<Record<string, string>>;
  /** Set when the command may not leave its sandbox as asked: why, and what to do instead. */
  refusal?: string;
  /** What a person must read first about it (a login profile the sandbox let the agent change). */
  warnings?: readonly string[];
}

/** A command as its executor started it. */
export interface StartedCommand {
  process: ExecProcess;
  /** The sandbox it runs in, as this executor lays it: undefined when none is (a container is the box). */
  sandbox: SandboxPolicy | undefined;
  /** Notes for the model (a login profile that could not be snapshotted). */
  warnings: string[];
  /** How long it waited for a login snapshot being taken before it started (see snapshotWaitMs); absent: not at all. */
  waitedMs?: number;
}

/** Starts processes on this machine from a complete spec: what LocalExecutor and an exec-server build on. */
export interface ProcessSpawner {
  /**
   * Throws or rejects when the process cannot be started at all. A promise where the start ends later (LocalExecutor's
   * terminals, cloned off the event loop); callers await either.
   */
  spawn(options: SpawnOptions): ExecProcess | Promise<ExecProcess>;
  /** Gets ready to spawn with these options (e.g. starts the sandbox's allowlist proxy); awaited before `spawn`. */
  prepareSpawn?(options: SpawnOptions): Promise<void>;
}

/** Where commands run: this machine, an exec-server, a container. Every way of running a command goes through one. */
export interface Executor {
  /**
   * What a command asking for `request` would run, checked without starting it: its argv and working directory as
   * this executor will resolve them (shown when approval is asked), or a SPAWN_FAILED error when it cannot start
   * here (no such shell or directory). Absent: the argv and directory as asked, checked only by `start`.
   */
  check?(request: CommandRequest): CommandPlan;
  /** Gets ready to start `request` (the sandbox's proxy); awaited before `start`, outside its limit. */
  prepare?(request: CommandRequest): Promise<void>;
  /**
   * Gets ready, in the background, for commands like `request` (a login snapshot): called once a server is up.
   * Resolves when done or given up, never rejects; a command that starts meanwhile must not wait for it.
   */
  warmUp?(request: CommandRequest): Promise<void>;
  /**
   * Starts the command; throws (or rejects) when it cannot be started at all. An executor that answers
   * asynchronously must keep output that arrives before the first onData listener and hand it to that listener.
   */
  start(request: CommandRequest): Promise<StartedCommand>;
  /**
   * Whether a command that is an `apply_patch` call is applied here by the manager (the patch applier runs on this
   * machine, in the sandbox): true for the local executor. Elsewhere it runs as the command it is.
   */
  readonly appliesPatches?: boolean;
  /** Where programs run, for people and models: `local`, `ws://10.0.0.2:8700`, `docker://web-1`. Absent: `local`. */
  readonly location?: string;
  /** Ends what the executor holds (connections, containers it made, snapshots); its processes end with it. */
  close?(): Promise<void>;
}
