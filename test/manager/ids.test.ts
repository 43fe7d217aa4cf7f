import { describe, expect, it } from 'vitest';
import { sequentialIds } from '../../src/index.js';
import { newChunkId, randomSessionId } from '../../src/manager/ids.js';

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
  it('makes 5-digit ids without a leading zero', () => {
    for (let i = 0; i < 500; i++) {
      const id = randomSessionId();
      expect(String(id)).toMatch(/^[1-9]\d{4}$/);
    }
  });

  it('does not keep returning the same id', () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomSessionId()));
    expect(ids.size).toBeGreaterThan(150);
  });
});

describe('newChunkId', () => {
  it('makes 6 lowercase hex characters', () => {
    for (let i = 0; i < 500; i++) expect(newChunkId()).toMatch(/^[0-9a-f]{6}$/);
  });

  it('makes a different id for each response', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newChunkId()));
    expect(ids.size).toBeGreaterThan(190);
  });
});
