import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Same relative path from src/linux/ (tests) and dist/linux/ (the build).
const WATCHDOG_SCRIPT = fileURLToPath(new URL('../../native/watchdog.mjs', import.meta.url));

/** Watchdog starts allowed in any window of WATCHDOG_START_WINDOW_MS: a watchdog that keeps dying causes no storm. */
export const WATCHDOG_MAX_STARTS = 5;
export const WATCHDOG_START_WINDOW_MS = 60_000;

/**
 * How long to wait before the next start, given the times of earlier starts: 0 while fewer than `maxStarts` fall in
 * the last `windowMs`, else until the oldest of them leaves the window.
 */
export function startDelayMs(
  starts: readonly number[],
  now: number,
  maxStarts = WATCHDOG_MAX_STARTS,
  windowMs = WATCHDOG_START_WINDOW_MS,
): number {
  const recent = starts.filter((at) => at > now - windowMs).sort((a, b) => a - b);
  if (recent.length < maxStarts) return 0;
  return recent[recent.length - maxStarts]! + windowMs - now;
}

/**
 * Keeps session processes from outliving this process, even when it is SIGKILLed: a small detached watchdog reads
 * our registrations from a pipe and kills what is still registered when the pipe closes. One per host process,
 * started on first use; it keeps neither the event loop nor the host alive. Should the watchdog itself die (an
 * agent's `kill -9` of stray node processes), a new one is started and told every live registration again.
 */
export class Watchdog {
  private static instance: Watchdog | undefined;
  private child: ChildProcess | undefined;
  private failed = false;
  /** What the watchdog must know: leader pid → process tag, for every session still running. */
  private readonly live = new Map<number, string>();
  private readonly starts: number[] = [];
  private retry: NodeJS.Timeout | undefined;
  /** Lines not yet written: a burst of spawns in one event-loop turn is told in one write (see send). */
  private pending = '';
  private flushing: NodeJS.Immediate | undefined;

  static shared(): Watchdog {
    Watchdog.instance ??= new Watchdog();
    return Watchdog.instance;
  }

  /** The watchdog's pid, once started (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  watch(leader: number, tag: string): void {
    this.live.set(leader, tag);
    this.send(`+${leader} ${tag}\n`);
  }

  unwatch(leader: number): void {
    if (this.live.delete(leader)) this.send(`-${leader}\n`);
  }

  /**
   * `live` already holds the change, so a watchdog started here learns it with the rest. Lines are written at the end
   * of the event-loop turn, all in one write: a pipe write wakes the watchdog, ~0.5 ms a line when a thousand sessions
   * start at once. (A registration thus reaches the watchdog up to one turn after the spawn.)
   */
  private send(line: string): void {
    if (!this.child) {
      this.start();
      return;
    }
    this.pending += line;
    this.flushing ??= setImmediate(() => {
      this.flushing = undefined;
      const lines = this.pending;
      this.pending = '';
      this.child?.stdin?.write(lines);
    });
  }

  private start(): void {
    if (this.child || this.failed || this.retry) return;
    const delayMs = startDelayMs(this.starts, Date.now());
    if (delayMs > 0) {
      this.retry = setTimeout(() => {
        this.retry = undefined;
        if (this.live.size > 0) this.start();
      }, delayMs);
      this.retry.unref();
      return;
    }
    this.starts.push(Date.now());
    if (this.starts.length > WATCHDOG_MAX_STARTS) this.starts.shift();
    try {
      // detached: its own session, so a signal to our process group or a terminal hang-up does not reach it.
      const child = spawn(process.execPath, [WATCHDOG_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      child.on('error', () => {
        this.failed = true;
        if (this.child === child) this.child = undefined;
      });
      // Its end of the pipe gone (EPIPE) or its exit reaped: either way it protects nothing any more.
      child.stdin?.on('error', () => this.lost(child));
      child.once('exit', () => this.lost(child));
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      this.child = child;
      this.pending = ''; // what it held is in `live`, written next
      const registrations = [...this.live].map(([leader, tag]) => `+${leader} ${tag}\n`).join('');
      if (registrations) child.stdin?.write(registrations);
    } catch {
      this.failed = true;
    }
  }

  private lost(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.live.size > 0) this.start();
  }
}
