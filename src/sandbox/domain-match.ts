import { isIP } from 'node:net';

// Which hosts a domain allowlist lets through, and which entries it takes. Pure.

export const HOST_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/i;
/** inet_aton reads `127.1` and `0x7f.1` as addresses: a name whose last label is a number is treated as one. */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;
const normalize = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
const isAddressLike = (host: string): boolean => isIP(host) !== 0 || NUMERIC_LAST_LABEL.test(host);

/**
 * Whether `allowlist` lets `host` through: `example.com` is that host only, `*.example.com` every subdomain but not
 * the apex. Case and a trailing dot do not matter; an IP address (or a name that resolves like one) matches only an
 * entry that is literally the same.
 */
export function matchesDomain(host: string, allowlist: readonly string[]): boolean {
  const name = normalize(host);
  if (name === '') return false;
  return allowlist.some((entry) => {
    const pattern = normalize(entry);
    if (!pattern.startsWith('*.')) return pattern === name;
    const suffix = pattern.slice(1);
    return !isAddressLike(name) && name.length > suffix.length && name.endsWith(suffix);
  });
}

/** Why `pattern` is not a valid allowlist entry, or undefined when it is one. */
export function validateDomainPattern(pattern: string): string | undefined {
  const expected = 'Expected a domain like `example.com` or `*.example.com`';
  const got = `got ${JSON.stringify(pattern)}`;
  if (pattern.trim() === '') return `${expected}, got an empty string`;
  if (/\s/.test(pattern)) return `${expected} without spaces, ${got}`;
  if (pattern.includes('://')) return `${expected} without a scheme (no http://), ${got}`;
  if (pattern.includes('/')) return `${expected} without a path, ${got}`;
  const name = normalize(pattern);
  if (isIP(name) !== 0) return undefined;
  if (pattern.includes(':')) return `${expected} without a port (every port of an allowed host is allowed), ${got}`;
  if (name === '*') return `${expected}, ${got}: a bare \`*\` would allow every host; turn the network on instead`;
  const rest = name.startsWith('*.') ? name.slice(2) : name;
  if (rest.includes('*')) return `${expected}: \`*\` only as the whole leftmost label, ${got}`;
  if (!HOST_NAME.test(rest)) return `${expected}: letters, digits, \`-\` and \`_\` between dots, ${got}`;
  if (NUMERIC_LAST_LABEL.test(rest)) return `${expected} or a whole IP address, ${got}`;
  return undefined;
}
