import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time comparison of SHA-256 digests: equal lengths always (timingSafeEqual demands it), so neither the
 * token's content nor its length leaks through timing.
 */
export function sameToken(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
