import { describe, expect, it } from 'vitest';
import { sequentialIds } from '../../src/index.js';
import { newChunkId, randomSessionId } from '../../src/manager/ids.js';

// The randomness checks below use bounds a uniform generator misses with a probability around one in a million or
// less, and that a counter, a constant or a fixed stride misses by far (each check says which it catches).

const SAMPLES = 1000;

/** How many neighbours in `values` are exactly one apart: what a counter produces at every step. */
const stepsOfOne = (values: number[]) => values.slice(1).filter((v, i) => Math.abs(v - values[i]!) === 1).length;

/** How many different steps lie between neighbours: one for a counter or a fixed stride. */
const distinctSteps = (values: number[]) => new Set(values.slice(1).map((v, i) => v - values[i]!)).size;

describe('sequentialIds', () => {
  it('counts up from 1000 by default', () => {
    const next = sequentialIds();
    expect([next(), next(), next()]).toEqual([1000, 1001, 1002]);
  });

  it('counts up from a given start, independently per generator', () => {
    const a = sequentialIds(7);
    const b = sequentialIds(7);
    expect([a(), a(), b()]).toEqual([7, 8, 7]);
  });
});

describe('randomSessionId', () => {
  const ids = Array.from({ length: SAMPLES }, () => randomSessionId());

  it('makes 5-digit ids without a leading zero', () => {
    for (const id of ids) expect(String(id)).toMatch(/^[1-9]\d{4}$/);
  });

  it('rarely repeats an id', () => {
    // About 5.5 repeats are expected among 1000 draws from 90000 values; a constant generator has 999.
    expect(new Set(ids).size).toBeGreaterThanOrEqual(SAMPLES - 25);
  });

  it('does not count: hardly any neighbours are one apart, and the steps between them vary', () => {
    // Uniform draws: about 0.02 neighbour pairs one apart, and nearly 999 different steps. A counter: 999 pairs one
    // apart and one step; a fixed stride (id += 7919, wrapping): two or three different steps.
    expect(stepsOfOne(ids)).toBeLessThanOrEqual(3);
    expect(distinctSteps(ids)).toBeGreaterThan(SAMPLES * 0.9);
  });

  it('spreads ids over the whole 10000-99999 range: both halves, and every leading digit', () => {
    // About 111 ids per leading digit (sd 10). A counter started at 10000 puts all 1000 under the digit 1; a
    // generator confined to half the range leaves four or five digits empty.
    const perLeadingDigit = Array.from({ length: 9 }, () => 0);
    for (const id of ids) perLeadingDigit[Math.floor(id / 10_000) - 1]!++;
    for (const count of perLeadingDigit) {
      expect(count, `ids per leading digit 1-9: ${perLeadingDigit.join(', ')}`).toBeGreaterThan(50);
    }
    const lowerHalf = ids.filter((id) => id < 55_000).length;
    expect(lowerHalf).toBeGreaterThan(SAMPLES * 0.4);
    expect(lowerHalf).toBeLessThan(SAMPLES * 0.6);
    expect(Math.max(...ids) - Math.min(...ids)).toBeGreaterThan(0.9 * 89_999);
  });
});

describe('newChunkId', () => {
  const chunkIds = Array.from({ length: SAMPLES }, () => newChunkId());

  it('makes 6 lowercase hex characters', () => {
    for (const id of chunkIds) expect(id).toMatch(/^[0-9a-f]{6}$/);
  });

  it('makes a different id for each response', () => {
    // 16.7 million values: about 0.03 repeats are expected among 1000 draws.
    expect(new Set(chunkIds).size).toBeGreaterThanOrEqual(SAMPLES - 3);
  });

  it('does not count: every hex position takes every digit, and neighbours are rarely one apart', () => {
    // A hex counter ("000000", "000001", ...) keeps its leading positions fixed and steps by one every time.
    for (let position = 0; position < 6; position++) {
      const digits = new Set(chunkIds.map((id) => id[position]));
      expect(digits.size, `different digits at position ${position}`).toBe(16);
    }
    const values = chunkIds.map((id) => parseInt(id, 16));
    expect(stepsOfOne(values)).toBeLessThanOrEqual(3);
    expect(distinctSteps(values)).toBeGreaterThan(SAMPLES * 0.9);
  });
});
