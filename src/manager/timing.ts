import { MAX_YIELD_TIME_MS, MIN_EMPTY_POLL_YIELD_MS, MIN_YIELD_TIME_MS } from './constants.js';

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/** exec_command and write_stdin with input wait between 250 ms and 30 s. */
export function clampYieldTime(yieldTimeMs: number): number {
  return clamp(yieldTimeMs, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS);
}

/** An empty write_stdin (a poll) waits at least 5 s, at most maxBackgroundPollMs (itself never below 5 s). */
export function clampPollTime(yieldTimeMs: number, maxBackgroundPollMs: number): number {
  const max = Math.max(maxBackgroundPollMs, MIN_EMPTY_POLL_YIELD_MS);
  return clamp(yieldTimeMs, MIN_EMPTY_POLL_YIELD_MS, max);
}
