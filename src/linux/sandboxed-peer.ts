/**
 * Who is at the other end of a TCP connection this process accepted, and is it sandboxed? A listening server of
 * ours (serve's MCP endpoint and live view, exec-server) refuses a connection made by a process that is confined
 * beyond the server (see confinedBeyond): every sandboxed command is, and so is anything it starts, however it
 * leaves the session (setsid, a double fork, a cleared environment); none can undo it.
 *
 * Why here and not in the kernel: Landlock can refuse a TCP connect per port, but only as an allow-list, so refusing
 * one port takes a rule for each of the 65 534 others: measured 100-190 ms to build per sandbox (a sandboxed spawn
 * takes 5 ms on Landlock) and 13 ms to enter even when built once, and it would refuse that port on every other host
 * too. The check here reads /proc once per connection that carried the token instead (see docs/sandbox.md for the
 * figures).
 */
import { readdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { readProcLink } from './proc-read.js';
import { confinedBeyond, findPeerSocket, readConfinement, type Confinement } from './tcp-table.js';
import { fromThisMachine } from '../net/address.js';
import { isLocalAddress } from './local-addresses.js';
import { madeInSandbox } from './sandbox-cgroup.js';
import { socketOwner } from '../net/socket-owner.js';

type PeerVerdict =
  | { refused: false }
  | {
      refused: true;
      /** Why, for the server's log line. */
      reason: string;
    };

interface AcceptedConnection {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
}

/** Does the fd table at `dir` (`/proc/<pid>/fd`, or a thread's) hold `link`? Undefined when it cannot be listed. */
function tableHolds(dir: string, link: string): boolean | undefined {
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return undefined; // gone, or not ours to look into (another user's, made non-dumpable, another user namespace's)
  }
  return fds.some((fd) => readProcLink(`${dir}/${fd}`) === link);
}

/**
 * Does process `pid` hold socket `link` (`socket:[inode]`) open? Undefined when its fds cannot be listed. With
 * `threads`, every thread's table is looked at too: a thread made without CLONE_FILES has one of its own, which
 * /proc/<pid>/fd does not show.
 */
function holds(pid: number, link: string, threads = false): boolean | undefined {
  const own = tableHolds(`/proc/${pid}/fd`, link);
  if (own !== false || !threads) return own;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let unknown = false;
  for (const tid of tasks) {
    if (tid === String(pid)) continue;
    const held = tableHolds(`/proc/${pid}/task/${tid}/fd`, link);
    if (held === true) return true;
    if (held === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

/**
 * Could a confined process whose files this one cannot list be one of its sandboxes? A sandbox runs as the server's
 * user (a sandboxed command cannot change it), in the server's user namespace or one below it; there a server with
 * CAP_SYS_PTRACE lists every process, made non-dumpable or not. So only a server without it, looking at a process of
 * its own user, cannot tell. Anything else it cannot list is another user's, or runs in a user namespace above or
 * beside the server's (a server in a container sees the host's sandboxes so): none of its own.
 */
function mayBeOurs(other: Confinement, own: Confinement): boolean {
  return !own.mayTrace && other.uid === own.uid;
}

/** Processes that held a connection let in lately (the client, mostly): looked at first next time. */
const recentHolders: number[] = [];
const RECENT_HOLDERS = 8;

/** Who holds the other end: a process (confined or not), or nobody we can see; `hidden`: a confined process might. */
type Holder = { pid: number; confined: boolean } | { pid: undefined; hidden: boolean };

/**
 * Which process holds socket `inode`: a confined one if any does (all of them are looked at: a socket can be shared),
 * else the first other one found, recent holders first. Reading every process's fds costs 12 ms with 80 processes
 * and 43 ms with 280, and the status files 10 times less: confined processes are few, and the client is found among
 * the recent holders, so a connection costs about one status file per process.
 */
export function holderOf(inode: number, own: Confinement): Holder {
  const link = `socket:[${inode}]`;
  const confined = confinedHolder(link, own);
  if (confined.pid !== undefined) return { pid: confined.pid, confined: true };
  const { others, hidden } = confined;
  const recent = recentHolders.filter((pid) => others.includes(pid));
  for (const pid of [...recent, ...others]) {
    if (holds(pid, link) !== true) continue;
    if (!recent.includes(pid)) recentHolders.unshift(pid);
    recentHolders.length = Math.min(recentHolders.length, RECENT_HOLDERS);
    return { pid, confined: false };
  }
  return { pid: undefined, hidden };
}

/**
 * The confined process that holds `link`, from every status file and the confined processes' fds only; else the
 * processes not confined (to look at next), and whether a confined one may hold it unseen (see mayBeOurs).
 */
export function confinedHolder(
  link: string,
  own: Confinement,
): { pid: number } | { pid: undefined; others: number[]; hidden: boolean } {
  const others: number[] = [];
  let hidden = false;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const confinement = readConfinement(pid);
    if (confinement === undefined) continue;
    if (!confinedBeyond(confinement, own)) {
      others.push(pid);
      continue;
    }
    const held = holds(pid, link, true);
    if (held === true) return { pid };
    if (held === undefined && mayBeOurs(confinement, own)) hidden = true;
  }
  return { pid: undefined, others, hidden };
}

/**
 * Judges a connection: let in when a process of this machine that is not confined beyond `own` (default: this
 * process) holds its other end, or it comes from another user or machine. A local socket of this user's that no
 * process it can see holds is refused: closed before its request was answered, in flight in a message (SCM_RIGHTS,
 * its sender's fd closed while the server decides), or held where this process cannot look; none can be told from a
 * sandboxed process hiding it.
 */
function judgePeer(connection: AcceptedConnection, own: Confinement | undefined = ownConfinement()): PeerVerdict {
  const { localAddress, localPort, remoteAddress, remotePort } = connection;
  if (localAddress === undefined || localPort === undefined || remoteAddress === undefined || remotePort === undefined)
    return { refused: true, reason: 'the connection had no addresses (already closed)' };
  const peer = findPeerSocket({ localAddress, localPort, remoteAddress, remotePort });
  const from = `${remoteAddress}:${remotePort}`;
  // Not in this namespace's tables: another machine, or a network namespace of its own (a sandbox with the network
  // off has nothing to reach us by). Not a peer of this machine, though: its end was reset and gone from the tables
  // before this look (the addresses Node kept from an earlier one), and its request is no one's to be told.
  if (peer === undefined && (fromThisMachine(remoteAddress, localAddress) || isLocalAddress(remoteAddress)))
    return { refused: true, reason: `${from} is of this machine but no longer in its tables (reset before the look)` };
  if (peer === undefined || own === undefined) return { refused: false };
  // An end no process holds any more (closed, its connection winding down: the kernel then lists it as root's, uid 0)
  // is no one's to be told: a sandboxed command that corks its request and closes at once made it so.
  if (peer.inode === 0) return { refused: true, reason: `${from} closed its socket before its request was answered` };
  // Made in a sandboxes' cgroup (this server's, or another server's on this machine: an exec-server running this
  // server's sessions, a second serve), whoever holds it now: a command can hand its socket to a process outside that
  // keeps it a moment (a desktop's D-Bus daemon queues a message with an fd in it). The tables list it, so the kernel's exact lookup must
  // find it too (asked with every interface, for a socket bound to one): where it does not, its maker is unknown,
  // and the connection is refused (a socket bound to `lo` once made the lookup miss, and the holders alone were
  // asked). Only without our addon (`unasked`) do the holders alone decide.
  const owner = socketOwner(connection);
  if (owner.found === 'none' || owner.found === 'failed')
    return { refused: true, reason: `${from}: the kernel's lookup of its socket failed (${owner.found})` };
  // The lookup falls back to a listener on the peer's address and port when no connection matches (a socket bound to
  // a device, with another process listening on its port): an answer that is not the socket the tables list is no
  // answer about it.
  if (owner.found === 'socket' && owner.inode !== peer.inode)
    return { refused: true, reason: `${from}: the kernel's lookup answered another socket than its own` };
  const made = owner.found === 'socket' ? madeInSandbox(owner.cgroup) : false;
  if (made === 'gone')
    return { refused: true, reason: `${from} was made in a cgroup that is gone (a stopped server's sandboxes'?)` };
  if (made) return { refused: true, reason: `${from} was made in a sandbox (its cgroup), whoever holds it now` };
  // A sandbox runs as the server's user (bubblewrap maps it to itself; Landlock keeps it, with no capability to
  // change it): another user's socket is no sandbox of ours.
  if (peer.uid !== process.getuid?.()) return { refused: false };
  const holder = holderOf(peer.inode, own);
  if (holder.pid !== undefined)
    return holder.confined
      ? { refused: true, reason: `${from} belongs to process ${holder.pid}, which runs in a sandbox` }
      : { refused: false };
  return holder.hidden
    ? { refused: true, reason: `${from} may belong to a sandboxed process whose files cannot be listed` }
    : { refused: true, reason: `${from} is held by no process this server can see (in flight in a message?)` };
}

let own: Confinement | undefined;
/** This process's confinement, read once: it only ever grows, and never by anything this process does later. */
export function ownConfinement(): Confinement | undefined {
  return (own ??= readConfinement('self'));
}

/** Asked by a server of ours about a connection that proved it may use the server. */
export interface PeerGuard {
  /**
   * Whether `socket` may be served: judged (judgePeer) the first time it is asked about a connection, and that verdict
   * kept for the connection's life. A refused connection is closed and logged once.
   */
  admits(socket: Socket): boolean;
}

/**
 * Judges, for a server, only the connections it asks about: those whose request carried the token (with no
 * token: passed the Host and Origin checks), before that request is served. A connection that never did costs
 * nothing here: judging reads /proc/net/tcp, which another local user can make long (TIME_WAIT entries), so judging
 * every accepted connection would let that user's connection flood hold up the server's event loop.
 */
export function refuseSandboxedPeers(log: (line: string) => void): PeerGuard {
  const verdicts = new WeakMap<Socket, boolean>();
  return {
    admits(socket) {
      const known = verdicts.get(socket);
      if (known !== undefined) return known;
      let verdict: PeerVerdict;
      try {
        verdict = judgePeer(socket);
      } catch (error) {
        verdict = { refused: true, reason: `its process could not be looked up (${(error as Error).message})` };
      }
      verdicts.set(socket, !verdict.refused);
      if (!verdict.refused) return true;
      log(`refused a connection: ${verdict.reason}; no process in a sandbox may use this server`);
      socket.destroy();
      return false;
    },
  };
}
