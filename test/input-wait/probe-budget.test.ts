import { describe, expect, it, vi } from 'vitest';
import { ProbeBudget } from '../../src/input-wait/probe-budget.js';

/** The next event-loop turn (after the check phase the budget ends its turns in). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const live = () => new AbortController().signal;

describe('ProbeBudget', () => {
  it("is one shared budget for the process, even across two copies of its module (the bundle and tsc's)", async () => {
    const path = '../../src/input-wait/probe-budget.js';
    const first = (await import(path)) as typeof import('../../src/input-wait/probe-budget.js');
    vi.resetModules();
    const second = (await import(path)) as typeof import('../../src/input-wait/probe-budget.js');
    expect(second.ProbeBudget).not.toBe(first.ProbeBudget);
    expect(second.ProbeBudget.shared()).toBe(first.ProbeBudget.shared());
  });

  it('grants its probes of a turn at once, synchronously, and makes the next wait for a later turn', async () => {
    const budget = new ProbeBudget(3);
    expect([budget.take(live()), budget.take(live()), budget.take(live())]).toEqual([true, true, true]);
    const fourth = budget.take(live());
    expect(fourth).toBeInstanceOf(Promise);
    await expect(fourth).resolves.toBe(true);
    expect(budget.counts).toEqual({ granted: 4, waited: 1 });
  });

  it('never makes a lone session wait: one probe a turn, turn after turn', async () => {
    const budget = new ProbeBudget(2);
    for (let turn = 0; turn < 100; turn++) {
      expect(budget.take(live())).toBe(true);
      await nextTurn();
    }
    expect(budget.counts).toEqual({ granted: 100, waited: 0 });
  });

  it('serves waiting probes first come first served, a turn of probes per turn, before any newcomer', async () => {
    const budget = new ProbeBudget(2);
    budget.take(live());
    budget.take(live());
    const order: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      void (budget.take(live()) as Promise<boolean>).then(() => order.push(name));
    }
    await nextTurn();
    expect(order).toEqual(['a', 'b']);
    // The turn's probes went to the waiters: a newcomer queues behind c, d, e.
    const late = budget.take(live());
    expect(late).toBeInstanceOf(Promise);
    void (late as Promise<boolean>).then(() => order.push('late'));
    await nextTurn();
    await nextTurn();
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e', 'late']);
  });

  it('drops an aborted probe without spending a turn on it', async () => {
    const budget = new ProbeBudget(1);
    budget.take(live());
    const cancel = new AbortController();
    const cancelled = budget.take(cancel.signal);
    const kept = budget.take(live());
    cancel.abort();
    await expect(cancelled).resolves.toBe(false);
    expect(budget.waiting).toBe(1);
    await nextTurn();
    await expect(kept).resolves.toBe(true);
    expect(budget.counts).toEqual({ granted: 2, waited: 1 });
  });

  it('holds nothing on the event loop once nobody probes', async () => {
    const budget = new ProbeBudget(1);
    const waiters = Array.from({ length: 10 }, () => budget.take(live()));
    await Promise.all(waiters);
    await nextTurn();
    await nextTurn();
    expect(process.getActiveResourcesInfo()).not.toContain('Immediate');
  });
});
