import { describe, expect, it } from 'vitest';
import { WATCHDOG_MAX_STARTS, WATCHDOG_START_WINDOW_MS, startDelayMs } from '../../src/linux/watchdog.js';

describe('startDelayMs', () => {
  it('starts at once while fewer than the allowed starts fall in the window', () => {
    expect(startDelayMs([], 1_000)).toBe(0);
    expect(startDelayMs([0, 10, 20, 30], 40, 5, 60_000)).toBe(0);
  });

  it('waits until the oldest start in a full window leaves it', () => {
    expect(startDelayMs([0, 10, 20, 30, 40], 50, 5, 60_000)).toBe(59_950);
    expect(startDelayMs([40, 0, 30, 10, 20], 50, 5, 60_000)).toBe(59_950); // order does not matter
  });

  it('forgets starts older than the window', () => {
    expect(startDelayMs([0, 10, 20, 30, 40], 60_001, 5, 60_000)).toBe(0);
    expect(startDelayMs([0, 70_000, 70_010, 70_020, 70_030], 70_040, 5, 60_000)).toBe(0);
  });

  it('defaults to a handful of starts a minute', () => {
    expect(WATCHDOG_MAX_STARTS).toBe(5);
    expect(WATCHDOG_START_WINDOW_MS).toBe(60_000);
    const burst = Array.from({ length: WATCHDOG_MAX_STARTS }, (_, i) => i);
    expect(startDelayMs(burst, WATCHDOG_MAX_STARTS)).toBe(WATCHDOG_START_WINDOW_MS - WATCHDOG_MAX_STARTS);
  });
});
