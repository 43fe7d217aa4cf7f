/**
 * Addresses as Node prints a socket's (`remoteAddress`, `localAddress`), taken apart for the kernel's tables: those
 * hold a link-local address without its zone (the interface is a separate field, an index) and an IPv4 connection
 * of a dual-stack listener as plain IPv4.
 */
import { networkInterfaces } from 'node:os';

/**
 * The address alone, so every form of one compares alike: an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`) as the IPv4
 * one, a zoned link-local one (`fe80::1%eth0`) without its zone, lower case.
 */
export function plainAddress(address: string): string {
  const unzoned = address.replace(/%.*$/s, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(unzoned);
  return mapped === null ? unzoned : mapped[1]!;
}

/**
 * Whether a connection's peer is on this machine, from the connection's two addresses alone: a loopback peer, one
 * reached at a loopback address (only this machine reaches those), or one at the very address it reached (a local
 * client connecting to an address of this machine leaves from it). A peer at another address of this machine is
 * told only by the kernel's tables (linux/local-addresses.ts).
 */
export function fromThisMachine(remoteAddress: string, localAddress: string): boolean {
  const loopback = (address: string) => address === '::1' || /^127\./.test(address);
  const remote = plainAddress(remoteAddress);
  const local = plainAddress(localAddress);
  return remote === local || loopback(remote) || loopback(local);
}

/** The zone of a scoped IPv6 address (`eth0` of `fe80::1%eth0`: Node adds it to every link-local one), or undefined. */
export function addressZone(address: string): string | undefined {
  const at = address.indexOf('%');
  return at < 0 ? undefined : address.slice(at + 1);
}

/**
 * The interface index a zone names: a number as it is; a name as its interface's, which each of its scoped
 * addresses carries as `scopeid` (an interface that took a link-local address has one). Undefined when no interface
 * of this network namespace has that name.
 */
export function zoneIndex(
  zone: string,
  interfaces: NodeJS.Dict<ReadonlyArray<{ family: string; scopeid?: number }>> = networkInterfaces(),
): number | undefined {
  if (/^\d+$/.test(zone)) return Number(zone);
  const scoped = interfaces[zone]?.find((entry) => entry.family === 'IPv6' && (entry.scopeid ?? 0) > 0);
  return scoped?.scopeid;
}
