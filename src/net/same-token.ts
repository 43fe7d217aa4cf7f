import { nodeCrypto } from '../util/lazy-crypto.js';

/**
 * Constant-time comparison of SHA-256 digests: equal lengths always (timingSafeEqual demands it), so neither the
 * token's content nor its length leaks through timing.
 */
export function sameToken(given: string, expected: string): boolean {
  const { createHash, timingSafeEqual } = nodeCrypto();
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
