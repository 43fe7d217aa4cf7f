import { MAX_YIELD_TIME_MS, MIN_EMPTY_POLL_YIELD_MS, MIN_YIELD_TIME_MS } from './constants.js';

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/** exec_command and write_stdin with input wait between 250 ms and 30 s. */
export function clampYieldTime(yieldTimeMs: number): number {
  return clamp(yieldTimeMs, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS);
}

/** The longest wait of an empty write_stdin (a poll): maxBackgroundPollMs, never below the 5 s a poll waits at least. */
export function longestPollMs(maxBackgroundPollMs: number): number {
  return Math.max(maxBackgroundPollMs, MIN_EMPTY_POLL_YIELD_MS);
}

/** An empty write_stdin (a poll) waits at least 5 s, at most longestPollMs. */
export function clampPollTime(yieldTimeMs: number, maxBackgroundPollMs: number): number {
  return clamp(yieldTimeMs, MIN_EMPTY_POLL_YIELD_MS, longestPollMs(maxBackgroundPollMs));
}
