import { afterEach } from 'vitest';
import { type ExecProcess, type ExitInfo } from '../../src/index.js';
import { buildEnv } from '../../src/spawn/env.js';
import { PipeProcess } from '../../src/spawn/pipe-process.js';
import { PtyProcess } from '../../src/spawn/pty-process.js';

/** A process under test with everything it printed so far and a promise of its exit. */
export interface Watched<P extends ExecProcess> {
  proc: P;
  /** Everything printed so far, decoded as UTF-8. */
  output(): string;
  /** Resolves with the exit info, and with the output as it stood when onExit fired. */
  exited: Promise<{ info: ExitInfo; output: string }>;
}

function watch<P extends ExecProcess>(proc: P): Watched<P> {
  const chunks: Buffer[] = [];
  const output = () => Buffer.concat(chunks).toString('utf8');
  proc.onData((chunk) => chunks.push(Buffer.from(chunk)));
  const exited = new Promise<{ info: ExitInfo; output: string }>((resolve) => {
    proc.onExit((info) => resolve({ info, output: output() }));
  });
  return { proc, output, exited };
}

/**
 * Returns spawners for `bash -c script` on a PTY or on pipes; an afterEach terminates every process they started
 * (by its process group, through the process's own terminate()).
 */
export function useProcesses(): {
  pty(script: string, options?: { cols?: number; rows?: number }): Promise<Watched<PtyProcess>>;
  pipes(script: string): Watched<PipeProcess>;
} {
  const live: ExecProcess[] = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((proc) => proc.terminate()));
  });
  const options = (script: string) => ({ argv: ['/bin/bash', '-c', script], cwd: process.cwd(), env: buildEnv() });
  return {
    async pty(script, size = {}) {
      const proc = await PtyProcess.start({ ...options(script), tty: true, ...size });
      live.push(proc);
      return watch(proc);
    },
    pipes(script) {
      const proc = new PipeProcess({ ...options(script), tty: false });
      live.push(proc);
      return watch(proc);
    },
  };
}
