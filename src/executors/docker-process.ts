import { Writable, type Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { delay, waitAtMost } from '../util/delay.js';
import { LOST_EXIT_CODE, ProcessCore } from '../spawn/process-core.js';
import type { ExecProcess, ExitInfo } from '../spawn/types.js';
import { engineReason, runtimeStartFailure } from './docker-messages.js';

/** What a process needs of the container it runs in. */
export interface ContainerLink {
  /** As people know it: the name given, or a short id. */
  readonly name: string;
  /** Why the container's sessions are gone (removed, stopped, engine unreachable), or undefined while it runs. */
  whyGone(err?: unknown): Promise<string | undefined>;
  /** Ends every process tagged `tag` and their sessions (see container-kill-script.ts); resolves when done. */
  killTree(tag: string, first: readonly string[]): Promise<void>;
}

export interface DockerProcessParts {
  exec: Dockerode.Exec;
  /** The exec's hijacked connection: raw output with a tty, Docker's multiplexed frames without. */
  stream: Duplex;
  tty: boolean;
  /** Whether stdin is attached (tty, or pipes with pipeStdin). */
  stdin: boolean;
  /** The session's UNIFIED_EXEC_TAG value. */
  tag: string;
  link: ContainerLink;
  /** Told once terminate() is done. */
  onTerminated?(proc: DockerProcess): void;
  /** dockerode's modem.demuxStream. */
  demux(stream: Duplex, stdout: Writable, stderr: Writable): void;
}

/** After the stream ends, how often and how long to ask for the exit code before calling the process lost. */
const EXIT_POLL_MS = 50;
const EXIT_POLLS = 40;
/** How long terminate waits for the kill exec (it takes ~0.2 s; at most ~1.5 s by its own limits, plus the engine). */
const KILL_TREE_WAIT_MS = 10_000;
/** How long terminate waits for the stream to end once the tree is killed, before cutting it. */
const STREAM_END_WAIT_MS = 2000;

const ignore = (): undefined => undefined;

/** One command running in a container through an exec. There is no pid here: it lives in the container. */
export class DockerProcess extends ProcessCore implements ExecProcess {
  readonly pid = undefined;
  readonly tty: boolean;
  private readonly parts: DockerProcessParts;
  private readonly streamEnded: Promise<void>;
  private readonly exited: Promise<void>;
  /** Resizes go through the API, input through the stream: input typed after a resize waits for it. */
  private resizing: Promise<void> = Promise.resolve();

  constructor(parts: DockerProcessParts) {
    super(parts.stdin);
    this.parts = parts;
    this.tty = parts.tty;
    const { stream } = parts;
    if (parts.tty) {
      stream.on('data', (chunk: Buffer) => this.emitData(chunk));
    } else {
      // Frames are parsed in order and each write runs at once, so stdout and stderr keep their arrival order.
      const sink = (name: 'stdout' | 'stderr') =>
        new Writable({
          write: (chunk: Buffer, _encoding, done) => {
            this.emitData(chunk, name);
            done();
          },
        });
      parts.demux(stream, sink('stdout'), sink('stderr'));
    }
    this.streamEnded = new Promise((resolve) => {
      for (const event of ['end', 'close', 'error']) stream.once(event, () => resolve());
    });
    stream.on('error', () => undefined);
    void this.streamEnded.then(() => this.endOutput());
    this.exited = this.streamEnded.then(async () => {
      this.finish(await this.settle());
    });
  }

  /**
   * Rejects when the runtime could not start the command (no such working directory or program): it says so in
   * the exec's output and ends it with 125-127. Podman answers this inspect once the command has started.
   */
  async started(): Promise<void> {
    let info: Dockerode.ExecInspectInfo;
    try {
      info = await this.parts.exec.inspect();
    } catch {
      return; // the exit (lost) will tell
    }
    if (info.Running || info.ExitCode === null || info.ExitCode < 125 || info.ExitCode > 127) return;
    await waitAtMost(this.streamEnded, 1000);
    const failure = runtimeStartFailure(this.keptOutput().toString(), this.parts.link.name);
    if (failure !== undefined) throw new Error(failure);
  }

  protected send(bytes: Uint8Array): Promise<void> {
    const { stream } = this.parts;
    if (stream.destroyed) return Promise.reject(new Error('process has exited'));
    return this.resizing.then(
      () => new Promise<void>((resolve, reject) => stream.write(bytes, (err) => (err ? reject(err) : resolve()))),
    );
  }

  get pendingInputBytes(): number {
    return this.parts.stdin ? this.parts.stream.writableLength : 0;
  }

  resize(cols: number, rows: number): void {
    if (!this.tty || this.exitInfo !== undefined) return;
    this.resizing = this.resizing.then(() =>
      this.parts.exec.resize({ h: rows, w: cols }).then(
        () => undefined,
        // Podman answers 201 where Docker answers 200, which dockerode counts as an error; any other failure means
        // the exec is gone, which its exit reports.
        () => undefined,
      ),
    );
  }

  /** Ends the tree with a second exec (no API signals an exec), then waits for this exec to be done. */
  protected async end(options: { force?: boolean }): Promise<void> {
    // SIGHUP wakes interactive shells, which ignore SIGTERM. A failure means the container or the engine is gone:
    // so are its processes, or they are out of reach; the exit says which.
    const signals = options.force ? ['KILL'] : this.tty ? ['HUP', 'TERM'] : ['TERM'];
    await waitAtMost(this.parts.link.killTree(this.parts.tag, signals).catch(ignore), KILL_TREE_WAIT_MS);
    await waitAtMost(this.streamEnded, STREAM_END_WAIT_MS);
    this.parts.stream.destroy();
    await waitAtMost(this.exited, EXIT_POLL_MS * EXIT_POLLS + 1000);
    this.parts.onTerminated?.(this);
  }

  /** The exit code once the stream has ended, or why it will never come. */
  private async settle(): Promise<ExitInfo> {
    const { exec, link } = this.parts;
    for (let poll = 0; poll < EXIT_POLLS; poll++) {
      let info: Dockerode.ExecInspectInfo;
      try {
        info = await exec.inspect();
      } catch (err) {
        return this.lost(err);
      }
      if (!info.Running && info.ExitCode !== null) {
        // Killed: by us, by the program's own means, or because its container went away.
        if (info.ExitCode >= 128 && !this.terminateCalled) {
          const why = await link.whyGone();
          if (why !== undefined) return { exitCode: LOST_EXIT_CODE, lost: why };
        }
        return { exitCode: info.ExitCode };
      }
      await delay(EXIT_POLL_MS);
    }
    return this.lost(undefined);
  }

  private async lost(err: unknown): Promise<ExitInfo> {
    const { link } = this.parts;
    const why =
      (await link.whyGone(err)) ??
      (err === undefined
        ? `the connection to the command in container ${link.name} closed while it still ran, and its exit status never came`
        : `the exit status of the command never came from container ${link.name} (${engineReason(err)})`);
    return { exitCode: LOST_EXIT_CODE, lost: why };
  }
}
