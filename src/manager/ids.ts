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

/** 6 random lowercase hex characters that name one response. */
export const newChunkId = (): string => randomBytes(3).toString('hex');
