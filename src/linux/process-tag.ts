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

/**
 * The process tag the process started with (`PROCESS_TAG_VAR` in its environment), or undefined: none, or gone; ''
 * when its environment reads empty. A process in the middle of an exec reads so (its new memory has no environment
 * yet, for a few microseconds), as do a kernel thread and a process started with none.
 */
export function readProcessTag(pid: number): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined; // gone, or not ours to read
  }
  if (environ === '') return '';
  const key = `${PROCESS_TAG_VAR}=`;
  // Entries are NUL-separated: with a NUL in front, every entry (the first too) starts after one.
  const entry = `\0${environ}`.indexOf(`\0${key}`);
  if (entry < 0) return undefined;
  const end = environ.indexOf('\0', entry);
  return environ.slice(entry + key.length, end < 0 ? undefined : end);
}
