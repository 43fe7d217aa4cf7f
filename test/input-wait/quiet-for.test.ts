import { createHook } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { quietFor } from '../../src/input-wait/policy.js';

/** Output that keeps arriving (its last piece: now) until `ms` from now, as a session's lastOutputAt tells it. */
function flow(ms: number) {
  let stoppedAt: number | undefined;
  const timer = setTimeout(() => (stoppedAt = performance.now()), ms);
  return {
    lastOutputAt: () => stoppedAt ?? performance.now(),
    stoppedAt: () => stoppedAt,
    stop: () => clearTimeout(timer),
  };
}

describe("quietFor, the input-wait policy's wait while output flows", () => {
  it('resolves at once when the last output is older than the quiet spell', async () => {
    const before = performance.now();
    await quietFor(5, new AbortController().signal, () => before - 10);
    expect(performance.now() - before).toBeLessThan(5);
  });

  it('waits out the flow, then the quiet spell, with one timer however long the flow', async () => {
    const { lastOutputAt, stoppedAt } = flow(150);
    let timers = 0;
    const hook = createHook({
      init: (_id, type) => {
        if (type === 'Timeout') timers++;
      },
    }).enable();
    try {
      await quietFor(2, new AbortController().signal, lastOutputAt);
    } finally {
      hook.disable();
    }
    expect(stoppedAt()).toBeDefined();
    expect(performance.now() - stoppedAt()!).toBeGreaterThanOrEqual(2);
    // A pause a millisecond, as it was, made a timer each: some 75 over this flow.
    expect(timers).toBeLessThanOrEqual(1);
  });

  it('ends on abort, mid-flow', async () => {
    const { lastOutputAt, stop } = flow(2000);
    const abort = new AbortController();
    const started = performance.now();
    const waited = quietFor(5, abort.signal, lastOutputAt);
    await sleep(20);
    abort.abort();
    await waited;
    stop();
    expect(performance.now() - started).toBeLessThan(500);
  });
});
