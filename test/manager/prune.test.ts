import { describe, expect, it } from 'vitest';
import { pickSessionToPrune, type SessionMeta } from '../../src/manager/prune.js';

/** Sessions 1..n, session i last used at time i (so 1 is the least recently used). */
function sessions(n: number, exited: number[] = []): SessionMeta[] {
  return Array.from({ length: n }, (_, i) => ({ id: i + 1, lastUsedMs: i + 1, exited: exited.includes(i + 1) }));
}

describe('pickSessionToPrune', () => {
  it('prunes nothing while there are 8 sessions or fewer', () => {
    expect(pickSessionToPrune([])).toBeUndefined();
    expect(pickSessionToPrune(sessions(1))).toBeUndefined();
    expect(pickSessionToPrune(sessions(8))).toBeUndefined();
    expect(pickSessionToPrune(sessions(8, [1, 2, 3]))).toBeUndefined();
  });

  it('prunes the least recently used session when none has exited', () => {
    expect(pickSessionToPrune(sessions(9))).toBe(1);
    expect(pickSessionToPrune(sessions(65))).toBe(1);
  });

  it('prefers the least recently used exited session over an older live one', () => {
    expect(pickSessionToPrune(sessions(65, [40, 30]))).toBe(30);
  });

  it('never picks one of the 8 most recently used, even when it has exited', () => {
    // 58..65 are the 8 most recent; 57 is the only candidate that exited.
    expect(pickSessionToPrune(sessions(65, [60, 65]))).toBe(1);
    expect(pickSessionToPrune(sessions(65, [57, 60]))).toBe(57);
    expect(pickSessionToPrune(sessions(9, [2, 3, 4, 5, 6, 7, 8, 9]))).toBe(1);
  });

  it('keeps a recently used session when pruning, whatever order the sessions come in', () => {
    const metas = sessions(9).reverse();
    // Session 1 was started first but used last.
    const reused = metas.map((s) => (s.id === 1 ? { ...s, lastUsedMs: 100 } : s));
    expect(pickSessionToPrune(reused)).toBe(2);
  });

  it('honours a different number of protected sessions', () => {
    expect(pickSessionToPrune(sessions(3), 2)).toBe(1);
    expect(pickSessionToPrune(sessions(2), 2)).toBeUndefined();
  });

  it('does not reorder the array it is given', () => {
    const metas = sessions(10).reverse();
    const before = metas.map((s) => s.id);
    pickSessionToPrune(metas);
    expect(metas.map((s) => s.id)).toEqual(before);
  });

  it('breaks a tie in last use in favour of the session stored later', () => {
    // All used in the same clock tick, stored in the order 1, 2, …: the first stored is the one to go.
    const tied = Array.from({ length: 3 }, (_, i) => ({ id: i + 1, lastUsedMs: 5, exited: false }));
    expect(pickSessionToPrune(tied, 2)).toBe(1);
    expect(pickSessionToPrune([...tied, { id: 4, lastUsedMs: 5, exited: true }], 2)).toBe(1);
  });
});
