import { isIP } from 'node:net';
import { sameToken } from '../net/same-token.js';

/** Strips IPv6 brackets and lowercases: `[::1]` → `::1`. */
function bareHost(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export function isLoopbackHost(host: string): boolean {
  const h = bareHost(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1' || h.startsWith('::ffff:127.');
}

export function isWildcardHost(host: string): boolean {
  const h = bareHost(host);
  return h === '0.0.0.0' || h === '::';
}

/** `host:port` as it appears in a Host header: IPv6 in brackets. */
export function hostWithPort(host: string, port: number): string {
  const h = bareHost(host);
  return `${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}

export interface GuardPolicy {
  /** Lowercased `host:port` values a Host header may carry. */
  allowedHosts: Set<string>;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * Which Host headers reach us legitimately: the bound address, the loopback names when bound to loopback or to
 * every interface, the machine's own addresses when bound to every interface, and any names the operator allowed.
 * A DNS-rebinding page arrives with its own domain in Host, which is none of these.
 */
export function buildGuardPolicy(options: {
  host: string;
  port: number;
  token?: string;
  extraHosts?: string[];
  interfaceAddresses?: string[];
}): GuardPolicy {
  const { host, port } = options;
  const names = [host];
  if (isLoopbackHost(host) || isWildcardHost(host)) names.push('localhost', '127.0.0.1', '::1');
  if (isWildcardHost(host)) names.push(...(options.interfaceAddresses ?? []));
  const allowed = new Set(names.map((name) => hostWithPort(name, port)));
  for (const extra of options.extraHosts ?? []) {
    // `name` or `[v6]` gets the bound port; `name:port` and `[v6]:port` are taken as given.
    allowed.add(/^(\[[^\]]+\]|[^:[\]]+):\d+$/.test(extra) ? extra.toLowerCase() : hostWithPort(extra, port));
  }
  if (port === 80) for (const value of [...allowed]) allowed.add(value.replace(/:80$/, ''));
  return { allowedHosts: allowed, ...(options.token !== undefined ? { token: options.token } : {}) };
}

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

/** Host, then Origin, then the bearer token; the first failure wins. */
export function checkRequest(
  headers: { host?: string | undefined; origin?: string | undefined; authorization?: string | undefined },
  policy: GuardPolicy,
): GuardVerdict {
  const host = headers.host?.toLowerCase();
  if (host === undefined || !policy.allowedHosts.has(host)) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: Host header ${JSON.stringify(headers.host ?? '')} is not an address this server listens on`,
    };
  }
  if (headers.origin !== undefined && !isAllowedOrigin(headers.origin, policy)) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: Origin ${JSON.stringify(headers.origin)} is not a loopback origin`,
    };
  }
  if (policy.token !== undefined && !bearerMatches(headers.authorization, policy.token)) {
    return {
      ok: false,
      status: 401,
      message:
        "Unauthorized: send the header `Authorization: Bearer <token>` with the server's token (printed by `unified-exec serve` at start, or the one in its --token-file or UNIFIED_EXEC_TOKEN)",
    };
  }
  return { ok: true };
}

function isAllowedOrigin(origin: string, policy: GuardPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the literal "null" of sandboxed pages and file:// documents
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return isLoopbackHost(url.hostname) || policy.allowedHosts.has(url.host.toLowerCase());
}

function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1] !== undefined && sameToken(match[1], token);
}
