import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Same relative path from src/linux/ (tests) and dist/linux/ (the build).
const WATCHDOG_SCRIPT = fileURLToPath(new URL('../../native/watchdog.mjs', import.meta.url));

/**
 * Keeps session processes from outliving this process, even when it is SIGKILLed: a small detached watchdog reads
 * our registrations from a pipe and kills what is still registered when the pipe closes. One per host process,
 * started on first use; it keeps neither the event loop nor the host alive.
 */
export class Watchdog {
  private static instance: Watchdog | undefined;
  private child: ChildProcess | undefined;
  private failed = false;

  static shared(): Watchdog {
    Watchdog.instance ??= new Watchdog();
    return Watchdog.instance;
  }

  /** The watchdog's pid, once started (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  watch(leader: number, tag: string): void {
    this.send(`+${leader} ${tag}\n`);
  }

  unwatch(leader: number): void {
    this.send(`-${leader}\n`);
  }

  private send(line: string): void {
    const child = this.start();
    if (!child?.stdin?.writable) return;
    child.stdin.write(line);
  }

  private start(): ChildProcess | undefined {
    if (this.child || this.failed) return this.child;
    try {
      // detached: its own session, so a signal to our process group or a terminal hang-up does not reach it.
      const child = spawn(process.execPath, [WATCHDOG_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      child.on('error', () => {
        this.failed = true;
        this.child = undefined;
      });
      child.stdin?.on('error', () => undefined);
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      this.child = child;
    } catch {
      this.failed = true;
    }
    return this.child;
  }
}
