// A scriptable stand-in for the process backend: no PTY, no real process. The test decides what a "process"
// prints, when it exits, whether a write gets through, and how long (and how) terminate() ends it.
import type {
  CommandRequest,
  Disposable,
  ExecProcess,
  Executor,
  ExitInfo,
  SpawnOptions,
  StartedCommand,
} from '../../src/index.js';
import { buildEnv } from '../../src/spawn/env.js';
import { commandArgv } from '../../src/spawn/command.js';

/**
 * Fake pids start above Linux's PID_MAX_LIMIT (2^22), so they name no real process: the manager's exit guard
 * SIGKILLs the process group of every live session's pid if the test process exits without a shutdown.
 */
const FIRST_FAKE_PID = 5_000_000;

/** A closed PTY session reports SIGHUP (the terminal hung up); a closed pipes session SIGTERM. */
const PTY_CLOSED_EXIT: ExitInfo = { exitCode: 128 + 1, signal: 'SIGHUP' };
const PIPES_CLOSED_EXIT: ExitInfo = { exitCode: 128 + 15, signal: 'SIGTERM' };

export interface FakeProcessOptions {
  /** How long terminate() takes before the exit is reported and it resolves. Default 0 (next timer turn). */
  terminateMs?: number;
  /** The exit terminate() reports when the process has not exited yet. Default by `tty`: 129 or 143. */
  exitOnTerminate?: ExitInfo;
  /** write() stays pending until releaseWrites(), exit() or terminate() (which rejects it). Default false. */
  holdWrites?: boolean;
  /**
   * false: exit() and terminate() leave held writes pending for ever, as a backend might whose write never settles
   * (a remote executor that lost its connection). Default true, as a real terminal does.
   */
  failWritesOnEnd?: boolean;
}

interface PendingWrite {
  text: string;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** One fake program. Everything a real ExecProcess promises (output before exit, exit once) holds here too. */
export class FakeProcess implements ExecProcess {
  readonly pid: number;
  readonly tty: boolean;
  /** No terminal handle: the input-wait policy has nothing to probe and leaves answers to the deadline. */
  readonly terminal = undefined;
  exitInfo: ExitInfo | undefined;
  /** Every terminate() call, repeated ones included. */
  terminateCalls = 0;
  /** Set once the first terminate() has resolved. */
  terminated = false;
  /** What write() delivered, in order; an abandoned (rejected) write is not here. */
  readonly written: string[] = [];
  holdWrites: boolean;
  failWritesOnEnd: boolean;
  terminateMs: number;
  exitOnTerminate: ExitInfo;
  private readonly pending: PendingWrite[] = [];
  private readonly dataListeners = new Set<(chunk: Buffer, stream: 'stdout') => void>();
  private readonly exitListeners = new Set<(info: ExitInfo) => void>();
  private termination: Promise<void> | undefined;
  /** A fake has no pipes to wait for: its output is done once it has exited. */
  readonly outputDone: Promise<void>;
  private outputEnded!: () => void;

  constructor(
    readonly spawnOptions: SpawnOptions,
    pid: number,
    options: FakeProcessOptions = {},
  ) {
    this.pid = pid;
    this.tty = spawnOptions.tty;
    this.outputDone = new Promise((resolve) => (this.outputEnded = resolve));
    this.holdWrites = options.holdWrites ?? false;
    this.failWritesOnEnd = options.failWritesOnEnd ?? true;
    this.terminateMs = options.terminateMs ?? 0;
    this.exitOnTerminate = options.exitOnTerminate ?? (this.tty ? PTY_CLOSED_EXIT : PIPES_CLOSED_EXIT);
  }

  /** Writes that are waiting for releaseWrites(). */
  get pendingWrites(): number {
    return this.pending.length;
  }

  /** The program prints `text`. Allowed after exit too (a grandchild may still hold the terminal). */
  print(text: string): void {
    const chunk = Buffer.from(text, 'utf8');
    for (const listener of [...this.dataListeners]) listener(chunk, 'stdout');
  }

  /** The program exits by itself; pending writes fail as they do on a real terminal whose program is gone. */
  exit(exitCode: number, signal?: string): void {
    if (this.exitInfo) throw new Error(`fake process ${this.pid} has already exited`);
    this.failPendingWrites(new Error('process has exited'));
    this.exitInfo = { exitCode, ...(signal ? { signal } : {}) };
    const info = this.exitInfo;
    for (const listener of [...this.exitListeners]) listener(info);
    this.outputEnded();
  }

  /** Lets every held write through, and stops holding later ones. */
  releaseWrites(): void {
    this.holdWrites = false;
    for (const write of this.pending.splice(0)) {
      this.written.push(write.text);
      write.resolve();
    }
  }

  onData(listener: (chunk: Buffer, stream: 'stdout') => void): Disposable {
    this.dataListeners.add(listener);
    return { dispose: () => void this.dataListeners.delete(listener) };
  }

  onExit(listener: (info: ExitInfo) => void): Disposable {
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  write(data: string | Uint8Array): Promise<void> {
    if (this.exitInfo || this.termination) return Promise.reject(new Error('the terminal is closed'));
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    if (!this.holdWrites) {
      this.written.push(text);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.pending.push({ text, resolve, reject }));
  }

  resize(): void {
    // no terminal to resize
  }

  /** Like the real ones: takes `terminateMs`, reports `exitOnTerminate` unless exited, rejects pending writes. */
  terminate(): Promise<void> {
    this.terminateCalls++;
    this.termination ??= (async () => {
      await new Promise((resolve) => setTimeout(resolve, this.terminateMs));
      // As on a real terminal: the exit fails pending writes, and closing the terminal fails any left.
      if (!this.exitInfo) this.exit(this.exitOnTerminate.exitCode, this.exitOnTerminate.signal);
      this.failPendingWrites(new Error('the terminal is closed'));
      this.terminated = true;
    })();
    return this.termination;
  }

  private failPendingWrites(reason: Error): void {
    if (!this.failWritesOnEnd) return;
    for (const write of this.pending.splice(0)) write.reject(reason);
  }
}

/**
 * An Executor whose every start is a FakeProcess, kept in start order for the test to drive; it builds the argv and
 * environment from the request as the local executor does, and keeps each request.
 */
export class FakeExecutor implements Executor {
  readonly processes: FakeProcess[] = [];
  readonly requests: CommandRequest[] = [];
  private nextPid = FIRST_FAKE_PID;

  /** `options` apply to every process spawned from now on; each process's fields can still be changed. */
  constructor(public options: FakeProcessOptions = {}) {}

  async start(request: CommandRequest): Promise<StartedCommand> {
    this.requests.push(request);
    const process = this.spawn({
      argv: commandArgv(request.command),
      cwd: request.workdir ?? request.defaultWorkdir,
      env: buildEnv(request.env),
      envPolicy: request.env,
      tty: request.tty,
      ...(request.tty ? { cols: request.cols, rows: request.rows } : {}),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    });
    return { process, sandbox: request.sandbox, warnings: [] };
  }

  spawn(options: SpawnOptions): FakeProcess {
    const proc = new FakeProcess(options, this.nextPid++, this.options);
    this.processes.push(proc);
    return proc;
  }

  /** The process of the n-th spawn (0 first); throws when there was none. */
  process(index: number): FakeProcess {
    const proc = this.processes[index];
    if (!proc) throw new Error(`no fake process #${index}; ${this.processes.length} spawned`);
    return proc;
  }
}
