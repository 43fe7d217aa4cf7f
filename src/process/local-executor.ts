import { PipeProcess } from './pipe-process.js';
import { PtyProcess } from './pty-process.js';
import type { ExecProcess, Executor, SpawnOptions } from './types.js';

/** Runs programs on this machine: a PTY when `tty` is set, pipes otherwise. */
export class LocalExecutor implements Executor {
  spawn(options: SpawnOptions): ExecProcess {
    return options.tty ? new PtyProcess(options) : new PipeProcess(options);
  }
}
