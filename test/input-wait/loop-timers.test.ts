import { describe, expect, it } from 'vitest';
import { FAR_TIMER_MS, confirmTicks, loopTimerAllows, type LoopTimers } from '../../src/input-wait/policy.js';

// The timer rule on plain data: an event loop reading the terminal with a timer (its wait's timeout). Times are
// performance.now() values in ms; `quiet` is a last-output time before everything here.
const fresh = (): LoopTimers => ({ waits: new Map(), tickMs: new Map(), unconfirmed: new Map() });
const quiet = -1;
const pid = 42;

describe('loopTimerAllows', () => {
  it('answers at once for a timer further off than FAR_TIMER_MS (the node REPL: V8 housekeeping, 8 s)', () => {
    expect(loopTimerAllows(fresh(), { pid, timeoutMs: 8094, runCount: 1 }, 0, quiet)).toBe(true);
  });

  it('holds for a timer due sooner (a setTimeout, an asyncio.sleep of 1.5 s) while it has not fired', () => {
    const loop = fresh();
    const timer = { pid, timeoutMs: 1500, runCount: 1 };
    expect(loopTimerAllows(loop, timer, 0, quiet)).toBe(false);
    expect(loopTimerAllows(loop, timer, 1000, quiet)).toBe(false);
  });

  it('counts down from when the wait was first seen: a far timer comes near', () => {
    const loop = fresh();
    const timer = { pid, timeoutMs: FAR_TIMER_MS + 500, runCount: 1 };
    expect(loopTimerAllows(loop, timer, 0, quiet)).toBe(true);
    expect(loopTimerAllows(loop, timer, 600, quiet)).toBe(false);
  });

  it('learns a periodic tick that fires with nothing printed (ipython, 0.5 s), and then answers at once', () => {
    const loop = fresh();
    expect(loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 1 }, 0, quiet)).toBe(false);
    // It fired, printed nothing and re-armed the same 0.5 s.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 498, runCount: 2 }, 505, quiet)).toBe(true);
    expect(loop.tickMs.get(pid)).toBe(500);
    // The next prompt's wait: its own 0.5 s tick, or what is left of it.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 9 }, 4000, 3990)).toBe(true);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 200, runCount: 10 }, 4100, 3990)).toBe(true);
    // A longer timer is not the tick.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1500, runCount: 11 }, 4200, 3990)).toBe(false);
  });

  // The premature answer once seen in the sandbox (node's 1.5 s setTimeout): two short waits at start-up looked like a
  // tick (both within the timing slack), and the last millisecond of the long timer, a wait of its own, passed as one.
  it('keeps a tick once the output drained after it shows the quiet spell was quiet', () => {
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 1 }, 0, quiet);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 2 }, 505, quiet)).toBe(true);
    expect(confirmTicks(loop, quiet)).toBe(true);
    expect(loop.tickMs.get(pid)).toBe(500);
    // Confirmed once: later output does not take it back.
    expect(confirmTicks(loop, 4000)).toBe(true);
    expect(loop.tickMs.get(pid)).toBe(500);
  });

  it('forgets a tick whose quiet spell had output still on its way (vim under load: Esc, redraw, its exit wait)', () => {
    // vim waits 100 ms to tell a lone Esc, redraws, and waits 100 ms again; on a busy machine the redraw reaches us
    // after the second wait is seen, so the first looked quiet. Its last 100 ms wait, before it exits, must not
    // then pass for a tick.
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 100, runCount: 20, startedMs: 1000 }, 50, quiet);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 100, runCount: 21, startedMs: 1101 }, 150, quiet)).toBe(true);
    expect(confirmTicks(loop, 155)).toBe(false); // the redraw, drained at the barrier
    expect(loop.tickMs.has(pid)).toBe(false);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 100, runCount: 26, startedMs: 1200 }, 200, 155)).toBe(false);
  });

  it('goes back to the tick it knew before when a longer one is belied', () => {
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 1 }, 0, quiet);
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 2 }, 505, quiet);
    confirmTicks(loop, quiet);
    loopTimerAllows(loop, { pid, timeoutMs: 900, runCount: 3 }, 1000, quiet);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 900, runCount: 4 }, 1905, quiet)).toBe(true);
    expect(confirmTicks(loop, 1910)).toBe(false);
    expect(loop.tickMs.get(pid)).toBe(500);
  });

  it('learns no tick from waits shorter than the timing slack, so the last moment of a long timer is waited for', () => {
    const loop = fresh();
    expect(loopTimerAllows(loop, { pid, timeoutMs: 4, runCount: 1 }, 0, quiet)).toBe(false);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 30, runCount: 2 }, 10, quiet)).toBe(false);
    expect(loop.tickMs.size).toBe(0);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1498, runCount: 3 }, 40, quiet)).toBe(false);
    // Woken a moment early, the loop waits out the rest: still the setTimeout, not a tick.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1, runCount: 4 }, 1537, quiet)).toBe(false);
  });

  // Once in a full-suite run (no sandbox): node's 1.5 s setTimeout answered at 1.57 s without its line. Woken early
  // for something else, the loop re-armed the rest of the same timer; not looked at again until its time was nearly
  // up, that looked like a tick that had fired. When the kernel says when each wait began, it is told apart.
  it('learns no tick from a loop woken early that re-armed the rest of its timer, when the waits began close together', () => {
    const loop = fresh();
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1460, runCount: 3, startedMs: 9000 }, 60, quiet)).toBe(false);
    // Seen next 1.41 s later: the wait began 10 ms after the first, so the first never ran its course.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1450, runCount: 4, startedMs: 9010 }, 1470, quiet)).toBe(false);
    expect(loop.tickMs.size).toBe(0);
    // A real tick: the new wait began when the old one's time was up.
    const ticking = fresh();
    loopTimerAllows(ticking, { pid, timeoutMs: 500, runCount: 1, startedMs: 9000 }, 0, quiet);
    expect(loopTimerAllows(ticking, { pid, timeoutMs: 500, runCount: 2, startedMs: 9501 }, 505, quiet)).toBe(true);
  });

  it('learns nothing from a timer that printed when it fired', () => {
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 1 }, 0, quiet);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 2 }, 505, 501)).toBe(false);
    expect(loop.tickMs.size).toBe(0);
  });

  it('learns nothing from a one-off timer: the loop re-armed another length (or woke before it was due)', () => {
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 590, runCount: 1 }, 0, quiet);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 1500, runCount: 2 }, 600, quiet)).toBe(false);
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 3 }, 1000, quiet);
    // Woken after 100 ms (its terminal, its own wake-up), not by the timer.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 4 }, 1100, quiet)).toBe(false);
    expect(loop.tickMs.size).toBe(0);
  });

  it('tells a new wait by its timeout too: its run count may have been read before the loop woke', () => {
    const loop = fresh();
    // The ~15 ms timer after a node REPL line, then V8's 8 s one, seen with the same run count.
    expect(loopTimerAllows(loop, { pid, timeoutMs: 14, runCount: 51 }, 0, quiet)).toBe(false);
    expect(loopTimerAllows(loop, { pid, timeoutMs: 8053, runCount: 51 }, 6, quiet)).toBe(true);
  });

  it('keeps what it learned per process', () => {
    const loop = fresh();
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 1 }, 0, quiet);
    loopTimerAllows(loop, { pid, timeoutMs: 500, runCount: 2 }, 505, quiet);
    expect(loopTimerAllows(loop, { pid: pid + 1, timeoutMs: 500, runCount: 1 }, 600, quiet)).toBe(false);
  });
});
