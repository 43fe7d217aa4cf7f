import { BlockList, isIP } from 'node:net';

// Which addresses the allowlist proxy may dial: none of this machine's, whatever name led to them. Pure: the
// resolved addresses and this machine's own come in, a verdict goes out.

/** What the proxy does with the addresses an allowed name resolved to. */
export type UpstreamVerdict =
  /** Dial `address`: the one checked, never the name again (its answer could change: DNS rebinding). */
  | { kind: 'dial'; address: string }
  /** `address` is this machine's (or no address at all could be read): dial nothing. */
  | { kind: 'this-machine'; address: string }
  | { kind: 'no-address' };

const withoutZone = (address: string): string => address.replace(/%.*$/, '');

/** Loopback, the unspecified addresses, and `own` (an interface's: v4 or v6, link-local with or without its zone). */
function addressesOfThisMachine(own: readonly string[]): BlockList {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4'); // connect() to 0.0.0.0 reaches this machine
  list.addAddress('::1', 'ipv6');
  list.addAddress('::', 'ipv6');
  for (const address of own) {
    const bare = withoutZone(address);
    const family = isIP(bare);
    if (family !== 0) list.addAddress(bare, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/**
 * Whether the proxy may dial an allowed host that resolved to `resolved`, given this machine's interface addresses
 * `own`: only when none of them is this machine's (an IPv4-mapped IPv6 address counts as its IPv4 one; a zone is
 * ignored). A connection from the proxy is the proxy's own, unconfined: a local server cannot tell it came from a
 * sandbox.
 */
export function judgeUpstream(resolved: readonly string[], own: readonly string[]): UpstreamVerdict {
  const first = resolved[0];
  if (first === undefined) return { kind: 'no-address' };
  const machine = addressesOfThisMachine(own);
  for (const address of resolved) {
    const bare = withoutZone(address);
    const family = isIP(bare);
    if (family === 0 || machine.check(bare, family === 6 ? 'ipv6' : 'ipv4')) return { kind: 'this-machine', address };
  }
  return { kind: 'dial', address: first };
}
