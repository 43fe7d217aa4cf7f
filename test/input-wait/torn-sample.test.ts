import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { decideInputWait } from '../../src/input-wait/decide.js';
import { runCounts, sampleForeground, syscallTable } from '../../src/input-wait/sampler.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import type { ExecProcess } from '../../src/spawn/types.js';

// A sample of a process is several reads of /proc, one after the other. A process woken between them (by the
// input just written) can show the wait it was in before beside its run count of after: that must not pass for a
// reader that has run since the input and waits again. Here the process is woken at the worst moment, on purpose:
// right after its wait has been read, and the sampler goes on only once it has run.

/** Called after each /proc read the sampler makes (after each call, for several read in one), with its path. */
let afterRead: ((path: string) => void) | undefined;

vi.mock('../../src/linux/proc-read.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/linux/proc-read.js')>();
  return {
    ...actual,
    readProcText: (path: string) => {
      const text = actual.readProcText(path);
      afterRead?.(path);
      return text;
    },
    // Several files in one call: the process is woken after the call, as it may be right after its last read.
    readProcFiles: (paths: readonly string[]) => {
      const texts = actual.readProcFiles(paths);
      for (const path of paths) afterRead?.(path);
      return texts;
    },
  };
});

const live: ExecProcess[] = [];
afterEach(async () => {
  afterRead = undefined;
  await Promise.all(live.splice(0).map((p) => p.terminate()));
});

const runsOf = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[2]);

// A program that reads a line from its terminal; a SIGUSR1 wakes it into a handler that sleeps, then prints.
const PROGRAM = [
  'import signal, sys, time',
  "def late(*_):\n    time.sleep(0.3)\n    print('late', flush=True)",
  'signal.signal(signal.SIGUSR1, late)',
  "print('ready', flush=True)",
  'sys.stdin.readline()',
].join('\n');

describe.skipIf(process.platform !== 'linux')('a sample torn by the process running', () => {
  it('is of a busy process, not of one waiting again', async () => {
    const table = syscallTable!;
    const proc = await new LocalExecutor({ watchdog: false }).spawn({
      argv: ['python3', '-c', PROGRAM],
      cwd: '/tmp',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' },
      tty: true,
    });
    live.push(proc);
    let out = '';
    proc.onData((chunk) => (out += chunk.toString()));
    const pid = proc.pid!;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const sample = sampleForeground(pid, table, proc.terminal);
      if (out.includes('ready') && sample && decideInputWait(sample, proc.terminal!.path, table).kind === 'waiting')
        break;
      if (Date.now() > deadline) throw new Error(`never waited; printed: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const baseline = runCounts(sampleForeground(pid, table, proc.terminal));

    // Once its wait has been read, wake it and go on only when it has run: it is then asleep in its handler, with
    // 'late' still to come.
    let woken = false;
    afterRead = (path) => {
      if (woken || path !== `/proc/${pid}/syscall`) return;
      woken = true;
      const before = runsOf(pid);
      process.kill(pid, 'SIGUSR1');
      const until = Date.now() + 5_000;
      while (runsOf(pid) === before && Date.now() < until);
    };
    const sample = sampleForeground(pid, table, proc.terminal)!;
    afterRead = undefined;
    expect(woken).toBe(true);
    const member = sample.members.find((m) => m.pid === pid)!;
    expect(member.runCount).not.toBe(baseline.get(pid));
    expect(decideInputWait(sample, proc.terminal!.path, table, baseline)).toMatchObject({ kind: 'busy' });
    expect(out).not.toContain('late');
  });
});
