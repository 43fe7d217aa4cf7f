import { PipeProcess } from './pipe-process.js';
import { PtyProcess } from './pty-process.js';
import type { ExecProcess, Executor, LifetimeHooks, SpawnOptions } from './types.js';
import { Watchdog } from '../linux/watchdog.js';

export interface LocalExecutorOptions {
  /**
   * Register every session with a watchdog process that kills it if this process dies without cleaning up
   * (even by SIGKILL). Default true.
   */
  watchdog?: boolean;
}

/** Runs programs on this machine: a PTY when `tty` is set, pipes otherwise. */
export class LocalExecutor implements Executor {
  private readonly lifetime: LifetimeHooks | undefined;

  constructor(options: LocalExecutorOptions = {}) {
    if (options.watchdog ?? true) {
      const watchdog = Watchdog.shared();
      this.lifetime = { started: (pid, tag) => watchdog.watch(pid, tag), ended: (pid) => watchdog.unwatch(pid) };
    }
  }

  spawn(options: SpawnOptions): ExecProcess {
    return options.tty ? new PtyProcess(options, this.lifetime) : new PipeProcess(options, this.lifetime);
  }
}
