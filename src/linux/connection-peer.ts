/**
 * Whose process is at the other end of a connection, for a listener's connection cap (net/connection-eviction.ts):
 * the kernel's lookup (net/socket-owner.ts) says which user owns the peer's socket, and for one of the server's
 * own user's, /proc says whether a sandboxed process holds it. A sandboxed command runs as the server's user but
 * cannot read the token; counted as the server's own, a flood of its connections would be judged by age alone, as the
 * token holder's are, and could close the token holder's before its request is read.
 */
import type { Socket } from 'node:net';
import type { Peer } from '../net/connection-limits.js';
import { socketOwner, type SocketOwner } from '../net/socket-owner.js';
import { holderOf, ownConfinement, type Holder } from './sandboxed-peer.js';

/**
 * The verdict on plain data: `owner` from the kernel, `ownUid` the server's, `holder` asked only of a socket of the
 * server's user's (undefined: this process's own confinement could not be read). Only an unsandboxed process of the
 * server's user is `ours`; where the kernel could not be asked, `unknown`; anything else, a failed lookup included,
 * `other`: a failure that made a peer the token holder's would let another user's flood pass for it.
 */
export function peerOf(
  owner: SocketOwner,
  ownUid: number | undefined,
  holder: (inode: number) => Holder | undefined,
): Peer {
  switch (owner.found) {
    case 'unasked':
      return 'unknown';
    case 'none':
    case 'failed':
      return 'other';
    case 'socket': {
      if (owner.uid !== ownUid) return 'other';
      // No process holds it any more: nobody waits on the connection.
      if (owner.inode === 0) return 'other';
      const held = holder(owner.inode);
      if (held === undefined) return 'unknown';
      if (held.pid !== undefined) return held.confined ? 'other' : 'ours';
      // Nobody this process can look into holds it: a sandbox hidden from it may (see holderOf), else it cannot tell.
      return held.hidden ? 'other' : 'unknown';
    }
    default:
      return 'other';
  }
}

/** Whose process is at the other end of `socket`, asked of the kernel and /proc (see peerOf). */
export function connectionPeer(socket: Socket): Peer {
  const own = ownConfinement();
  return peerOf(socketOwner(socket), process.getuid?.(), (inode) =>
    own === undefined ? undefined : holderOf(inode, own),
  );
}
