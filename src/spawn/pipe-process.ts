import { spawn, type ChildProcess } from 'node:child_process';
import { resolveProgram } from './env.js';
import { toExitInfo } from './exit-info.js';
import { waitAtMost } from '../util/delay.js';
import { Listeners } from '../util/listeners.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { interruptProcessGroup } from '../linux/interrupt.js';
import { killSessionTree } from '../linux/process-tree.js';
import type { Disposable, ExecProcess, LifetimeHooks, ExitInfo, SpawnOptions } from './types.js';

/**
 * After the process exits, how long to keep waiting for its pipes to reach end-of-file. EOF comes at once unless
 * a background grandchild still holds them; bytes that arrive later still reach onData.
 */
const TRAILING_OUTPUT_MS = 50;

/** Which pipe a chunk came from. */
export type PipeStream = 'stdout' | 'stderr';

/**
 * One program on pipes: stdout and stderr interleaved in arrival order (onData) or told apart (onStreamData), stdin
 * /dev/null unless `pipeStdin`, its own session.
 */
export class PipeProcess implements ExecProcess {
  readonly pid: number;
  /** Levels of wrappers above the command (the sandbox's): a Ctrl-C passes them by. */
  private readonly supervisorDepth: number;
  readonly tty = false;
  /** In every process of the session's environment, so escapees (setsid, double fork) can be found. */
  readonly tag = newProcessTag();
  exitInfo: ExitInfo | undefined;
  private readonly child: ChildProcess;
  private readonly dataListeners = new Listeners<Buffer>();
  private readonly streamListeners = new Listeners<{ chunk: Buffer; stream: PipeStream }>();
  private readonly exitListeners = new Listeners<ExitInfo>();
  private openStreams = 2;
  private bytesSeen = 0;
  private streamsEnded: (() => void) | undefined;
  private terminated: Promise<void> | undefined;
  private readonly exited: Promise<void>;
  /** Resolves once stdout and stderr have both reached end-of-file (or were destroyed by terminate). */
  readonly outputDone: Promise<void>;

  constructor(
    options: SpawnOptions,
    private readonly lifetime?: LifetimeHooks,
  ) {
    const [file, ...args] = options.argv;
    if (file === undefined) throw new Error('argv is empty');
    // Looked up on the child's PATH, not ours; argv0 is what the program sees as its name.
    const program = resolveProgram(file, options.env, options.cwd);
    // detached: setsid(), so the whole tree is one session we can find and kill.
    this.child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...options.env, [PROCESS_TAG_VAR]: this.tag },
      stdio: [options.pipeStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: true,
      ...(options.arg0 !== undefined ? { argv0: options.arg0 } : {}),
    });
    if (this.child.pid === undefined) {
      // spawn reports ENOENT and friends asynchronously; swallow that event, the caller gets a thrown error now.
      this.child.once('error', () => undefined);
      throw new Error(`could not start ${file}`);
    }
    this.pid = this.child.pid;
    this.supervisorDepth = options.supervisorDepth ?? 0;
    lifetime?.started(this.pid, this.tag);
    const streamsDone = new Promise<void>((resolve) => (this.streamsEnded = resolve));
    this.outputDone = streamsDone;
    // A program that exits without reading its stdin makes our next write fail with EPIPE: a rejected write, no crash.
    this.child.stdin?.on('error', () => undefined);
    for (const [name, stream] of [
      ['stdout', this.child.stdout],
      ['stderr', this.child.stderr],
    ] as const) {
      stream?.on('data', (chunk: Buffer) => {
        this.bytesSeen += chunk.length;
        this.dataListeners.emit(chunk);
        this.streamListeners.emit({ chunk, stream: name });
      });
      stream?.once('close', () => {
        if (--this.openStreams === 0) this.streamsEnded?.();
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        const info = toExitInfo(code, signal);
        void this.trailingOutput(streamsDone).then(() => {
          this.exitInfo = info;
          this.exitListeners.emit(info);
          resolve();
        });
      });
    });
    this.child.on('error', () => undefined);
  }

  /**
   * Resolves when the pipes reach end-of-file, or when a grandchild keeps them open and they have been quiet for
   * TRAILING_OUTPUT_MS. Quiet is judged after one more event-loop turn, so bytes that piled up while the loop was
   * busy are read first instead of being counted as silence. A grandchild that never stops printing gets a few
   * windows, not forever.
   */
  private async trailingOutput(streamsDone: Promise<void>): Promise<void> {
    for (let window = 0; window < 4; window++) {
      const seen = this.bytesSeen;
      await waitAtMost(streamsDone, TRAILING_OUTPUT_MS);
      if (this.openStreams === 0) return;
      await new Promise((resolve) => setImmediate(resolve));
      if (this.bytesSeen === seen) return;
    }
  }

  onData(listener: (chunk: Buffer) => void): Disposable {
    return this.dataListeners.add(listener);
  }

  /** Like onData, with the pipe each chunk came from. */
  onStreamData(listener: (chunk: Buffer, stream: PipeStream) => void): Disposable {
    return this.streamListeners.add(({ chunk, stream }) => listener(chunk, stream));
  }

  onExit(listener: (info: ExitInfo) => void): Disposable {
    return this.exitListeners.add(listener);
  }

  /** Rejects unless started with `pipeStdin`; resolves once the bytes are in the pipe (the program may not read). */
  write(data: string | Uint8Array): Promise<void> {
    const stdin = this.child.stdin;
    if (!stdin) return Promise.reject(new Error('stdin is closed for this session'));
    if (this.exitInfo !== undefined || !stdin.writable) return Promise.reject(new Error('process has exited'));
    return new Promise((resolve, reject) => stdin.write(data, (error) => (error ? reject(error) : resolve())));
  }

  /** Input written but not yet taken by the pipe. */
  get pendingInputBytes(): number {
    return this.child.stdin?.writableLength ?? 0;
  }

  resize(_cols: number, _rows: number): void {
    // no terminal to resize
  }

  /** SIGINT to the process group, as Codex does for "\u0003" written to a session without a terminal. */
  interrupt(): void {
    if (this.exitInfo === undefined) interruptProcessGroup(this.pid, this.supervisorDepth);
  }

  terminate(): Promise<void> {
    this.terminated ??= (async () => {
      await killSessionTree(this.pid, { first: ['SIGTERM'], tag: this.tag });
      await waitAtMost(this.exited, 1000);
      this.child.stdin?.destroy();
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      this.lifetime?.ended(this.pid);
    })();
    return this.terminated;
  }
}
