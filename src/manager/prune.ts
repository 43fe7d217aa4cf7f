import { PRUNE_PROTECTED_RECENT } from './constants.js';

export interface SessionMeta {
  id: number;
  lastUsedMs: number;
  exited: boolean;
}

/**
 * Which session to drop when the store is over its cap (`sessions` in the order they were stored): never one of
 * the `protectedRecent` most recently used; of the rest, the least recently used that has already exited, else the
 * least recently used.
 */
export function pickSessionToPrune(
  sessions: readonly SessionMeta[],
  protectedRecent = PRUNE_PROTECTED_RECENT,
): number | undefined {
  // `sessions` come oldest first; reversed before the (stable) sort, a tie in lastUsedMs counts the newer as more
  // recent, so calls within one clock tick never prune the session just started.
  const byRecency = [...sessions].reverse().sort((a, b) => b.lastUsedMs - a.lastUsedMs);
  const candidates = byRecency.slice(protectedRecent).reverse(); // least recently used first
  return (candidates.find((s) => s.exited) ?? candidates[0])?.id;
}
