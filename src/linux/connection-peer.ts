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
import { madeInSandbox } from './sandbox-cgroup.js';
import { confinedHolder, holderOf, ownConfinement } from './sandboxed-peer.js';

/** Whether a sandboxed process holds a socket: `unknown` where this process's own confinement cannot be read. */
type Sandboxed = 'yes' | 'no' | 'unknown';

/**
 * The verdict on plain data: `owner` from the kernel, `ownUid` the server's, `sandboxed` asked only of a socket of
 * the server's user's. Only an unsandboxed process of the server's user is `ours`; where the kernel could not be
 * asked, `unknown`; anything else, a failed lookup included, `other`: a failure that made a peer the token holder's
 * would let another user's flood pass for it.
 */
export function peerOf(owner: SocketOwner, ownUid: number | undefined, sandboxed: (inode: number) => Sandboxed): Peer {
  switch (owner.found) {
    case 'unasked':
      return 'unknown';
    case 'none':
    case 'failed':
      return 'other';
    case 'socket': {
      // Made in a sandbox of ours, whoever holds it now.
      if (madeInSandbox(owner.cgroup) !== false) return 'other';
      if (owner.uid !== ownUid) return 'other';
      // No process holds it any more: nobody waits on the connection.
      if (owner.inode === 0) return 'other';
      const verdict = sandboxed(owner.inode);
      return verdict === 'yes' ? 'other' : verdict === 'no' ? 'ours' : 'unknown';
    }
    default:
      return 'other';
  }
}

/**
 * Does a sandboxed process hold socket `inode`? The status files and the confined processes' fds answer it (a few
 * ms with a few hundred processes, where reading every process's fds takes tens). Only where a confined process
 * hides its fds from this one are the others' read: the socket is a sandbox's unless one of them is seen holding it.
 */
function sandboxHolds(inode: number): Sandboxed {
  const own = ownConfinement();
  if (own === undefined) return 'unknown';
  try {
    const confined = confinedHolder(`socket:[${inode}]`, own);
    if (confined.pid !== undefined) return 'yes';
    if (!confined.hidden) return 'no';
    const holder = holderOf(inode, own);
    return holder.pid !== undefined && !holder.confined ? 'no' : 'yes';
  } catch {
    // /proc cannot be listed: asked at the cap, in the connection handler, this must not throw.
    return 'unknown';
  }
}

/** Whose process is at the other end of `socket`, asked of the kernel and /proc (see peerOf). */
export function connectionPeer(socket: Socket): Peer {
  return peerOf(socketOwner(socket), process.getuid?.(), sandboxHolds);
}
