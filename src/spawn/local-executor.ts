import { PipeProcess } from './pipe-process.js';
import { PtyProcess } from './pty-process.js';
import type { ExecProcess, Executor, LifetimeHooks, SpawnOptions } from './types.js';
import { Watchdog } from '../linux/watchdog.js';
import { SandboxLauncher } from '../sandbox/launcher.js';

export interface LocalExecutorOptions {
  /**
   * Register every session with a watchdog process that kills it if this process dies without cleaning up
   * (even by SIGKILL). Default true.
   */
  watchdog?: boolean;
  /** Wraps sandboxed spawns in bubblewrap; default: the process's shared launcher. */
  sandbox?: SandboxLauncher;
}

/** Runs programs on this machine: a PTY when `tty` is set, pipes otherwise. */
export class LocalExecutor implements Executor {
  private readonly lifetime: LifetimeHooks | undefined;
  private readonly launcher: SandboxLauncher;

  constructor(options: LocalExecutorOptions = {}) {
    this.launcher = options.sandbox ?? SandboxLauncher.shared();
    if (options.watchdog ?? true) {
      const watchdog = Watchdog.shared();
      this.lifetime = { started: (pid, tag) => watchdog.watch(pid, tag), ended: (pid) => watchdog.unwatch(pid) };
    }
  }

  async prepare(options: SpawnOptions): Promise<void> {
    if (options.sandbox !== undefined) await this.launcher.ready(options.sandbox);
  }

  spawn(options: SpawnOptions): ExecProcess {
    if (options.sandbox === undefined) return this.start(options);
    const inner = insideSandbox(options);
    const sandboxed = this.launcher.wrap(options.sandbox, inner);
    let proc: ExecProcess;
    try {
      proc = this.start({
        ...inner,
        argv: sandboxed.argv,
        env: sandboxed.env,
        supervisorDepth: sandboxed.supervisorDepth,
      });
    } catch (err) {
      sandboxed.release();
      throw err;
    }
    // After the exit has been answered: releasing may read /proc, which the reply need not wait for.
    proc.onExit(() => setImmediate(() => sandboxed.release()));
    return proc;
  }

  private start(options: SpawnOptions): ExecProcess {
    return options.tty ? new PtyProcess(options, this.lifetime) : new PipeProcess(options, this.lifetime);
  }
}

/**
 * What the sandbox runs: argv[0] is the program's name inside it, not bubblewrap's; bash's `exec -a` gives it there
 * (the same process, so it stays the sandbox's child).
 */
function insideSandbox(options: SpawnOptions): SpawnOptions {
  const { arg0, ...rest } = options;
  if (arg0 === undefined || arg0 === options.argv[0]) return rest;
  return { ...rest, argv: ['/bin/bash', '-c', 'exec -a "$0" "$@"', arg0, ...options.argv] };
}
