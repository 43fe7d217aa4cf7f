import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decideInputWait } from '../../src/input-wait/decide.js';
import { InputWaitPolicy } from '../../src/input-wait/policy.js';
import { ProbeBudget } from '../../src/input-wait/probe-budget.js';
import type { WatchContext } from '../../src/input-wait/return-policy.js';
import { sampleForeground, syscallTable } from '../../src/input-wait/sampler.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import type { ExecProcess } from '../../src/spawn/types.js';

// Once its quick probes are spent on a busy program, the policy waits for its output to pause before it looks again
// (a flood is no prompt). A program's answer and its prompt can come apart by less than that pause: bash held off a
// CPU for 0.3 ms between its `echo` and its prompt, 2-3 % of round trips on a 2-core VM, answered 1 ms after its
// prompt. So the first output after the quick probes gets a look of its own, whatever the flow; later ones wait for
// the pause as before.

const live: ExecProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((p) => p.terminate()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function spawn(argv: string[]): Promise<ExecProcess> {
  const proc = await new LocalExecutor({ watchdog: false }).spawn({
    argv,
    cwd: '/tmp',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' },
    tty: true,
  });
  live.push(proc);
  return proc;
}

describe.skipIf(process.platform !== 'linux')('a look at the output that follows the quick probes', () => {
  it('comes at once, while output still flows, and finds the program waiting', async () => {
    const table = syscallTable!;
    const dir = mkdtempSync(join(tmpdir(), 'ue-look-'));
    dirs.push(dir);
    const flag = join(dir, 'go');
    // Busy (a CPU-bound loop) until the flag file appears, then blocked reading its terminal, printing nothing.
    const proc = await spawn([
      'python3',
      '-c',
      `import os, sys\nwhile not os.path.exists(${JSON.stringify(flag)}): pass\nsys.stdin.readline()`,
    ]);
    const pid = proc.pid!;

    // The session's output, as the test tells it: flowing all along (every look finds it just now), so that only a
    // look taken on the output itself, not on a pause in it, can answer.
    const listeners = new Set<() => void>();
    const controller = new AbortController();
    let released = false;
    const context: WatchContext = {
      process: proc,
      lastOutputAt: () => performance.now(),
      onActivity: (listener) => {
        listeners.add(listener);
        // The policy waits for output now: the program goes on to wait for input, then its output comes. The
        // event loop is held meanwhile, so no timer of the policy's can fire first.
        if (!released) {
          released = true;
          writeFileSync(flag, '');
          const deadline = Date.now() + 10_000;
          for (;;) {
            const sample = sampleForeground(pid, table, proc.terminal);
            if (sample && decideInputWait(sample, proc.terminal!.path, table).kind === 'waiting') break;
            if (Date.now() > deadline) throw new Error('the program never went on to read its terminal');
          }
          queueMicrotask(() => [...listeners].forEach((l) => l()));
        }
        return { dispose: () => listeners.delete(listener) };
      },
      signal: controller.signal,
      trigger: 'poll',
    };
    const budget = new ProbeBudget();
    const policy = new InputWaitPolicy({ probeBudget: budget });
    const answer = policy.watch(context);
    const timeout = new Promise<'flowing'>((resolve) => setTimeout(() => resolve('flowing'), 3_000));
    const result = await Promise.race([answer, timeout]);
    controller.abort();
    await answer;
    expect(released).toBe(true);
    expect(result).toEqual({ state: 'waiting_for_input' });
  });

  it('is taken once: a flood still costs a handful of probes', async () => {
    // 300 ms of output with no pause: after the first output's look, the policy waits for the flow to stop.
    const proc = await spawn([
      'python3',
      '-c',
      'import sys, time\nend = time.time() + 0.3\nwhile time.time() < end: sys.stdout.write("x" * 512); sys.stdout.flush()\nsys.stdin.readline()',
    ]);
    let last = performance.now();
    const listeners = new Set<() => void>();
    proc.onData(() => {
      last = performance.now();
      [...listeners].forEach((l) => l());
    });
    const controller = new AbortController();
    const budget = new ProbeBudget();
    const answer = await new InputWaitPolicy({ probeBudget: budget }).watch({
      process: proc,
      lastOutputAt: () => last,
      onActivity: (listener) => {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
      },
      signal: controller.signal,
      trigger: 'start',
    });
    expect(answer).toEqual({ state: 'waiting_for_input' });
    // The first look, the quick probes, a look on the next output and its quick probes, then a probe per pause in
    // the flow: a probe on each of the flood's thousands of reads would be far more.
    expect(budget.counts.granted).toBeLessThan(40);
  });
});
