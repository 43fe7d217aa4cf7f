import { spawn, type ChildProcess } from 'node:child_process';
import { resolveProgram } from './env.js';
import { toExitInfo } from './exit-info.js';
import { waitAtMost } from '../util/delay.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { interruptProcessGroup } from '../linux/interrupt.js';
import { killSessionTree } from '../linux/process-tree.js';
import { ProcessCore } from './process-core.js';
import type { ExecProcess, LifetimeHooks, SpawnOptions } from './types.js';
import type { StandbyLauncher } from './launcher-standby.js';

/**
 * After the process exits, how long to keep waiting for its pipes to reach end-of-file. EOF comes at once unless
 * a background grandchild still holds them; bytes that arrive later still reach onData.
 */
const TRAILING_OUTPUT_MS = 50;

/** One program on pipes: stdout and stderr in arrival order, each chunk named, stdin /dev/null unless `pipeStdin`, its own session. */
export class PipeProcess extends ProcessCore implements ExecProcess {
  readonly pid: number;
  /** Levels of wrappers above the command (the sandbox's): a Ctrl-C passes them by. */
  private readonly supervisorDepth: number;
  readonly tty = false;
  /** In every process of the session's environment, so escapees (setsid, double fork) can be found. */
  readonly tag: string;
  private readonly child: ChildProcess;
  private openStreams = 2;
  private bytesSeen = 0;
  private readonly exitReported: Promise<void>;

  /**
   * `standby`: a launcher already started (StandbyLaunchers), handed its command by the caller, to adopt instead of
   * spawning `options.argv`; its stdin is closed here unless `options.pipeStdin`.
   */
  constructor(
    options: SpawnOptions,
    private readonly lifetime?: LifetimeHooks,
    standby?: StandbyLauncher,
  ) {
    super(options.pipeStdin === true);
    if (standby !== undefined) {
      this.tag = standby.tag;
      this.child = standby.child;
      if (!options.pipeStdin) this.child.stdin?.destroy();
    } else {
      this.tag = newProcessTag();
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
    }
    if (this.child.pid === undefined) {
      // spawn reports ENOENT and friends asynchronously; swallow that event, the caller gets a thrown error now.
      this.child.once('error', () => undefined);
      throw new Error(`could not start ${options.argv[0]}`);
    }
    this.pid = this.child.pid;
    this.supervisorDepth = options.supervisorDepth ?? 0;
    lifetime?.started(this.pid, this.tag);
    // A program that exits without reading its stdin makes our next write fail with EPIPE: a rejected write, no crash.
    this.child.stdin?.on('error', () => undefined);
    for (const [name, stream] of [
      ['stdout', this.child.stdout],
      ['stderr', this.child.stderr],
    ] as const) {
      stream?.on('data', (chunk: Buffer) => {
        this.bytesSeen += chunk.length;
        this.emitData(chunk, name);
      });
      stream?.once('close', () => {
        if (--this.openStreams === 0) this.endOutput();
      });
    }
    this.exitReported = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        const info = toExitInfo(code, signal);
        void this.trailingOutput().then(() => {
          this.finish(info);
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
  private async trailingOutput(): Promise<void> {
    for (let window = 0; window < 4; window++) {
      const seen = this.bytesSeen;
      await waitAtMost(this.outputDone, TRAILING_OUTPUT_MS);
      if (this.openStreams === 0) return;
      await new Promise((resolve) => setImmediate(resolve));
      if (this.bytesSeen === seen) return;
    }
  }

  /** Resolves once the bytes are in the pipe (the program may not read them). */
  protected send(bytes: Uint8Array): Promise<void> {
    const stdin = this.child.stdin;
    if (!stdin?.writable) return Promise.reject(new Error('process has exited'));
    return new Promise((resolve, reject) => stdin.write(bytes, (error) => (error ? reject(error) : resolve())));
  }

  /** The program reads end-of-file once it has read what was written. */
  closeInput(): void {
    this.child.stdin?.end();
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

  protected async end(options: { force?: boolean }): Promise<void> {
    await killSessionTree(this.pid, { first: [options.force ? 'SIGKILL' : 'SIGTERM'], tag: this.tag });
    await waitAtMost(this.exitReported, 1000);
    this.child.stdin?.destroy();
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.endOutput();
    this.lifetime?.ended(this.pid);
  }
}
