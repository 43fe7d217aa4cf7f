import { describe, expect, it } from 'vitest';
import { clampPollTime, clampYieldTime, longestPollMs } from '../../src/manager/timing.js';

describe('clampYieldTime', () => {
  it('keeps a yield time between 250 ms and 30 s unchanged', () => {
    expect(clampYieldTime(250)).toBe(250);
    expect(clampYieldTime(10_000)).toBe(10_000);
    expect(clampYieldTime(30_000)).toBe(30_000);
  });

  it('raises a shorter yield time to 250 ms', () => {
    expect(clampYieldTime(0)).toBe(250);
    expect(clampYieldTime(10)).toBe(250);
  });

  it('lowers a longer yield time to 30 s', () => {
    expect(clampYieldTime(31_415)).toBe(30_000);
    expect(clampYieldTime(Number.MAX_SAFE_INTEGER)).toBe(30_000);
  });
});

describe('clampPollTime', () => {
  it('makes an empty poll wait at least 5 s', () => {
    expect(clampPollTime(0, 300_000)).toBe(5_000);
    expect(clampPollTime(250, 300_000)).toBe(5_000);
  });

  it('keeps a poll time between 5 s and the maximum unchanged', () => {
    expect(clampPollTime(5_000, 300_000)).toBe(5_000);
    expect(clampPollTime(120_000, 300_000)).toBe(120_000);
  });

  it('caps a poll at the configured maximum background poll time', () => {
    expect(clampPollTime(1_000_000, 300_000)).toBe(300_000);
    expect(clampPollTime(60_000, 20_000)).toBe(20_000);
  });

  it('never lets the maximum fall below 5 s', () => {
    expect(clampPollTime(60_000, 1_000)).toBe(5_000);
    expect(clampPollTime(0, 0)).toBe(5_000);
  });
});

describe('longestPollMs', () => {
  it('is maxBackgroundPollMs, never below 5 s, and what a poll of any length is clamped to', () => {
    expect(longestPollMs(300_000)).toBe(300_000);
    expect(longestPollMs(60_000)).toBe(60_000);
    expect(longestPollMs(1_000)).toBe(5_000);
    for (const max of [1_000, 60_000, 300_000]) expect(clampPollTime(Infinity, max)).toBe(longestPollMs(max));
  });
});
