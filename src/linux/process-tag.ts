import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The process tag: a variable every process of one exec session inherits, so processes that left the session
 * (setsid, double fork) can still be found and ended.
 */
export const PROCESS_TAG_VAR = 'UNIFIED_EXEC_TAG';

const hostToken = randomBytes(4).toString('hex');
let tagCount = 0;

/** A tag no other session of any host process uses. */
export function newProcessTag(): string {
  return `${hostToken}.${++tagCount}`;
}

/** Whether the process started with `PROCESS_TAG_VAR=tag` in its environment. */
export function hasProcessTag(pid: number, tag: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    return environ.startsWith(`${PROCESS_TAG_VAR}=${tag}\0`) || environ.includes(`\0${PROCESS_TAG_VAR}=${tag}\0`);
  } catch {
    return false; // gone, or not ours to read
  }
}
