/**
 * Which local socket is at the other end of a connection a listener accepted, asked of the kernel: one exact lookup
 * in its table of connections (sock_diag, through our addon), where reading /proc/net/tcp would walk a table another
 * local user can make long.
 */
import { optionalNativeHelpers } from '../util/native-addon.js';
import { addressZone, plainAddress, zoneIndex } from './address.js';

export type SocketOwner =
  /**
   * A socket of this network namespace: its owner's uid, its inode (0 once no process holds it), and the cgroup its
   * maker was in (where the kernel tells it).
   */
  | { found: 'socket'; uid: number; inode: number; cgroup?: bigint }
  /** No socket of this network namespace: another machine's, or another namespace's (a container, a sandbox). */
  | { found: 'none' }
  /** Not asked: the addon does not load here, or the connection has no addresses left (closed). */
  | { found: 'unasked' }
  /** Asked, and the lookup failed (a zone no interface has, an error of the kernel's). */
  | { found: 'failed'; why: string };

/** A connection's addresses, as Node gives them on a socket (undefined once it is closed). */
export interface ConnectionAddresses {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}

/** The socket at the other end of `socket`, as the kernel's table has it; on every address form Node gives. */
export function socketOwner(socket: ConnectionAddresses): SocketOwner {
  const { localAddress, localPort, remoteAddress, remotePort } = socket;
  const native = optionalNativeHelpers();
  if (native === undefined || !localAddress || !localPort || !remoteAddress || !remotePort) return { found: 'unasked' };
  // Both ends of a link-local connection are on one interface: Node names it on both (`fe80::1%eth0`).
  const zone = addressZone(remoteAddress) ?? addressZone(localAddress);
  try {
    // networkInterfaces() may throw too (where the interfaces cannot be listed): a failed lookup all the same.
    const index = zone === undefined ? 0 : zoneIndex(zone);
    if (index === undefined) return { found: 'failed', why: `no interface ${zone} for ${remoteAddress}` };
    // The peer's socket: its own address is our connection's remote one.
    const owner = native.tcpSocketOwner(
      plainAddress(remoteAddress),
      remotePort,
      plainAddress(localAddress),
      localPort,
      index,
    );
    return owner === null ? { found: 'none' } : { found: 'socket', ...owner };
  } catch (error) {
    return { found: 'failed', why: (error as Error).message };
  }
}
