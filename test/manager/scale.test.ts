import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { InputWaitPolicy } from '../../src/input-wait/policy.js';
import { ProbeBudget } from '../../src/input-wait/probe-budget.js';
import { processTableScans } from '../../src/linux/process-tree.js';
import { BASH, INTERACTIVE_BASH, useManagers } from '../helpers/manager.js';

const SESSIONS = 48;
/** How long idle sessions are watched for background work. */
const IDLE_MS = 500;

const openShell = (manager: ReturnType<ReturnType<typeof useManagers>>) =>
  manager.execCommand({ command: `PS1='$ ' exec ${INTERACTIVE_BASH}`, ...BASH, tty: true, yieldTimeMs: 30_000 });

/** How many callbacks (timers, immediates, I/O) this process runs while `wait` passes, and the CPU it spends. */
async function backgroundWork(wait: () => Promise<void>): Promise<{ callbacks: number; cpuMs: number }> {
  let callbacks = 0;
  const hook = createHook({ before: () => void callbacks++ }).enable();
  const cpu = process.cpuUsage();
  try {
    await wait();
  } finally {
    hook.disable();
  }
  const used = process.cpuUsage(cpu);
  return { callbacks, cpuMs: (used.user + used.system) / 1000 };
}

const sleep = (ms: number) => () => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('many sessions', () => {
  const newManager = useManagers();

  it('costs nothing per idle session: no timer, no probe of /proc, no scan of it', async () => {
    const budget = new ProbeBudget();
    const manager = newManager({ maxSessions: SESSIONS, returnPolicy: new InputWaitPolicy({ probeBudget: budget }) });
    const alone = await backgroundWork(sleep(IDLE_MS));
    const opened = await Promise.all(Array.from({ length: SESSIONS }, () => openShell(manager)));
    expect(opened.map((r) => r.state)).toEqual(Array(SESSIONS).fill('waiting_for_input'));

    await sleep(50)(); // what the calls' answers left to do (ending their probes) is done
    const [probes, scans] = [budget.counts.granted, processTableScans()];
    const idle = await backgroundWork(sleep(IDLE_MS));

    // As many callbacks as with no session open (the test runner's own), give or take a few: none per session.
    expect(idle.callbacks).toBeLessThan(alone.callbacks + SESSIONS / 4);
    expect(budget.counts.granted).toBe(probes);
    expect(processTableScans()).toBe(scans);
    expect(idle.cpuMs).toBeLessThan(IDLE_MS / 5);
    // And each still answers at its prompt.
    const reply = await manager.writeStdin({
      sessionId: opened[17]!.sessionId!,
      chars: 'echo hi\r',
      yieldTimeMs: 10_000,
    });
    expect(reply.output).toMatch(/^hi\r?$/m);
    expect(reply.state).toBe('waiting_for_input');
  });

  it('shares one probe budget among sessions starting at once, and each still answers at its prompt', async () => {
    // One probe per event-loop turn for all 24: sessions whose output comes in the same turn take turns.
    const budget = new ProbeBudget(1);
    const manager = newManager({ maxSessions: 24, returnPolicy: new InputWaitPolicy({ probeBudget: budget }) });
    const opened = await Promise.all(Array.from({ length: 24 }, () => openShell(manager)));
    expect(opened.map((r) => r.state)).toEqual(Array(24).fill('waiting_for_input'));
    expect(budget.counts.waited).toBeGreaterThan(0);
    expect(budget.waiting).toBe(0);
  });

  it('never makes a lone session wait for the shared budget', async () => {
    const manager = newManager();
    const { sessionId } = await openShell(manager);
    const budget = ProbeBudget.shared();
    const waited = budget.counts.waited;
    for (let i = 0; i < 100; i++) {
      const reply = await manager.writeStdin({ sessionId: sessionId!, chars: `echo ${i}\r`, yieldTimeMs: 10_000 });
      expect(reply.state).toBe('waiting_for_input');
      expect(reply.output).toContain(`${i}\r\n`);
    }
    expect(budget.counts.waited).toBe(waited);
  });
});
