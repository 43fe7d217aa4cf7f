import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { readProcStat } from '../linux/process-tree.js';
import { waitAtMost } from '../util/delay.js';

/** A launcher started ahead of its command, on pipes: the child, and the process tag its environment holds. */
export interface StandbyLauncher {
  readonly child: ChildProcess;
  readonly tag: string;
  /** Hands the launcher its options and command (standbyHandOver's text); it then runs the command. */
  handOver(text: string): void;
}

/**
 * Whether `child` still runs and can take a command: not only as far as its exit events tell (they wait for the
 * event loop), but by its state now, so that one killed an instant ago is not handed a command. One stopped (by
 * someone outside the sandboxes: none in them can signal it) would hold the command until it is continued: it is
 * killed, and not used.
 */
function isRunning(child: ChildProcess): boolean {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return false;
  const stat = readProcStat(child.pid);
  if (stat === undefined || stat.ppid !== process.pid || stat.state === 'Z' || stat.state === 'X') return false;
  if (stat.state === 'T' || stat.state === 't') {
    child.kill('SIGKILL');
    return false;
  }
  return true;
}

/**
 * When to start the next launcher after one was taken, at the latest: at once would hold the event loop (a spawn
 * blocks it for a millisecond or more) while the command that took the last one runs, so the next one is started
 * once that command has ended, or this long after it started.
 */
const REFILL_AFTER_MS = 50;

/**
 * One Landlock launcher kept started and waiting (`--standby`: native/sandbox-exec.c), for the next sandboxed command
 * (on pipes, or on a terminal made for it, which the launcher takes: `--tty`): that command's start then does not wait for a process to be made and the launcher to be loaded, which
 * took more than half of a short command's time (docs/benchmarks.md, figure 18a). A command that finds none waiting
 * (the first, or one of several started at once) is started the usual way.
 *
 * The waiting launcher does nothing: it reads its pipe and dies with this process (the pipe's end, and a parent-death
 * signal). It keeps neither the event loop nor this process alive.
 */
export class StandbyLaunchers {
  private waiting: StandbyLauncher | undefined;
  private closed = false;
  /** Set when a launcher could not be started: none is tried again (the usual start says why). */
  private failed = false;
  private refillTimer: NodeJS.Timeout | undefined;

  /** `argv`: the launcher's command line in standby (SandboxLauncher.standbyArgv). */
  constructor(private readonly argv: () => string[]) {}

  /**
   * The launcher waiting, if one is and it still runs; it is the caller's from here on. Another is started when
   * `ended` resolves, or REFILL_AFTER_MS from now.
   */
  take(ended: Promise<unknown>): StandbyLauncher | undefined {
    const taken = this.waiting;
    this.waiting = undefined;
    const running = taken !== undefined && isRunning(taken.child);
    this.scheduleRefill(ended);
    if (!running) return undefined;
    taken.child.ref();
    for (const stream of [taken.child.stdout, taken.child.stderr])
      (stream as (Readable & { ref?(): void }) | null)?.ref?.();
    return taken;
  }

  /** Stops the waiting launcher (it exits at the end of its pipe) and starts no more. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting === undefined) return;
    const { child } = waiting;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdio[3]?.destroy();
    await waitAtMost(exited, 1000);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  private scheduleRefill(ended: Promise<unknown>): void {
    if (this.closed || this.failed || this.refillTimer !== undefined) return;
    let done = false;
    const refill = () => {
      if (done) return;
      done = true;
      clearTimeout(this.refillTimer);
      this.refillTimer = undefined;
      if (!this.closed && this.waiting === undefined) this.start();
    };
    this.refillTimer = setTimeout(refill, REFILL_AFTER_MS).unref();
    // After the exit has been answered: setImmediate runs once the reply's promises have settled.
    void ended.then(() => setImmediate(refill));
  }

  private start(): void {
    const [file, ...args] = this.argv();
    const tag = newProcessTag();
    let child: ChildProcess;
    try {
      child = spawn(file!, args, {
        cwd: '/',
        env: { [PROCESS_TAG_VAR]: tag },
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch {
      this.failed = true;
      return;
    }
    if (child.pid === undefined) {
      child.once('error', () => undefined);
      this.failed = true;
      return;
    }
    child.on('error', () => undefined);
    const control = child.stdio[3] as Writable;
    control.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    // Waiting keeps nothing alive: a taken launcher is referenced again (take).
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr, control])
      (stream as { unref?(): void } | null)?.unref?.();
    const launcher: StandbyLauncher = {
      child,
      tag,
      handOver: (text) => {
        control.end(text);
      },
    };
    child.once('exit', () => {
      if (this.waiting === launcher) this.waiting = undefined;
    });
    this.waiting = launcher;
  }
}
