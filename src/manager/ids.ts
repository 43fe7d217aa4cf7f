import { randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';

const firstDigit = customAlphabet('123456789', 1);
const otherDigits = customAlphabet('0123456789', 4);

/** A 5-digit id a model can type back: no leading zero, so it survives being read as a number. */
export const randomSessionId = (): number => Number(firstDigit() + otherDigits());

/** Deterministic ids for tests: start, start + 1, … */
export function sequentialIds(start = 1000): () => number {
  let next = start;
  return () => next++;
}

/** Random bytes for chunk ids, drawn a few hundred replies at a time: one draw costs about what a reply does. */
let pool = Buffer.alloc(0);
let taken = 0;

/** 6 random lowercase hex characters that name one response. */
export function newChunkId(): string {
  if (taken + 3 > pool.length) {
    pool = randomBytes(768);
    taken = 0;
  }
  taken += 3;
  return pool.toString('hex', taken - 3, taken);
}
