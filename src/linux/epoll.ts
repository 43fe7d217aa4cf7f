import { readdirSync, statSync } from 'node:fs';
import { readProcLink, readProcTable, readProcText } from './proc-read.js';
import { optionalNativeHelpers } from '../util/native-addon.js';

/**
 * What an event loop waits on, read from outside: the fds an epoll set watches (`/proc/<pid>/fdinfo/<epfd>`) and what
 * each one is. A loop that watches its terminal and nothing but its own wake-ups (an eventfd, a self-pipe, a
 * socketpair it holds both ends of) can only be woken from outside by input on the terminal; one that also watches a
 * socket to someone else, a pipe to another process or a file can be woken by them. This module only reads and
 * classifies; whether the loop is waiting for input (its timers, its threads) is input-wait's decision.
 */

/** One `tfd:` line of an epoll fdinfo: a watched fd, the events asked for, and the identity of the file it was. */
export interface EpollTarget {
  fd: number;
  events: number;
  /** Inode and device of the file the fd referred to when it was added: tells a reused fd number apart. */
  ino: number;
  sdev: number;
}

const TFD =
  /^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)\s+data:\s*[0-9a-f]+\s+pos:\s*\d+\s+ino:\s*([0-9a-f]+)\s+sdev:\s*([0-9a-f]+)/;

/** The watched fds of an epoll fdinfo text; lines that are not `tfd:` lines are skipped. Pure. */
export function parseEpollFdinfo(text: string): EpollTarget[] {
  const targets: EpollTarget[] = [];
  for (const line of text.split('\n')) {
    const m = TFD.exec(line);
    if (!m) continue;
    targets.push({
      fd: Number(m[1]),
      events: parseInt(m[2]!, 16),
      ino: parseInt(m[3]!, 16),
      sdev: parseInt(m[4]!, 16),
    });
  }
  return targets;
}

/** An open fd of the process: its link target (`/dev/pts/3`, `pipe:[123]`, `anon_inode:[eventfd]`) and inode. */
export interface OpenFd {
  link: string;
  ino: number;
}

/** What a watched fd is, for the question "who can wake this loop?". */
export type WatchedKind =
  /** The session's terminal: input from the agent. */
  | 'terminal'
  /** Woken only by the process itself: eventfd, signalfd, timerfd, a pipe or socketpair it holds both ends of. */
  | 'own-wakeup'
  /** Anything else: a socket to someone else, a pipe to another process, a file, an fd since closed or reused. */
  | 'other';

const OWN_ANON = new Set(['anon_inode:[eventfd]', 'anon_inode:[signalfd]', 'anon_inode:[timerfd]']);

/**
 * Sorts each watched fd of an epoll set. `fds` is the process's fd table (with every thread's fds: they share it);
 * `terminal` the link of the session's terminal (e.g. `/dev/pts/3`); `pairs` the socket inodes known to be
 * the two ends of one pair (see `ownSocketPairs`). A watched fd whose number now names another file
 * (closed and reused since it was added) counts as `other`: unknown is never taken for quiet. Pure.
 */
export function classifyWatched(
  targets: readonly EpollTarget[],
  fds: ReadonlyMap<number, OpenFd>,
  terminal: string | undefined,
  pairs: ReadonlyMap<number, number> = new Map(),
): { fd: number; kind: WatchedKind }[] {
  const holders = new Map<string, number>();
  for (const { link } of fds.values()) holders.set(link, (holders.get(link) ?? 0) + 1);
  const heldSockets = socketInodes(fds);
  return targets.map(({ fd, ino }) => {
    const open = fds.get(fd);
    if (open === undefined || open.ino !== ino) return { fd, kind: 'other' };
    const { link } = open;
    if (terminal !== undefined && link === terminal) return { fd, kind: 'terminal' };
    if (OWN_ANON.has(link)) return { fd, kind: 'own-wakeup' };
    // A self-pipe: the same pipe open twice in the process (its read end here, its write end beside it).
    if (link.startsWith('pipe:[') && (holders.get(link) ?? 0) >= 2) return { fd, kind: 'own-wakeup' };
    const socket = socketInode(link);
    if (socket !== undefined) {
      const peer = pairs.get(socket);
      if (peer !== undefined && heldSockets.has(peer)) return { fd, kind: 'own-wakeup' };
    }
    return { fd, kind: 'other' };
  });
}

/** One row of /proc/net/unix. */
export interface UnixSocketRow {
  ino: number;
  /** 1: stream, 2: datagram, 5: seqpacket. */
  type: number;
  /** 3: connected. */
  state: number;
  path?: string;
}

/** The rows of /proc/net/unix. Pure. */
export function parseNetUnix(text: string): UnixSocketRow[] {
  const rows: UnixSocketRow[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 7) continue;
    const row: UnixSocketRow = {
      ino: Number(fields[6]),
      type: parseInt(fields[4]!, 16),
      state: parseInt(fields[5]!, 16),
    };
    if (fields[7] !== undefined) row.path = fields[7];
    rows.push(row);
  }
  return rows;
}

/**
 * Which of `held` (socket inodes a process holds) look like the two ends of one `socketpair()`, where the kernel
 * cannot be asked (see ownSocketPairs): connected, unnamed unix sockets of the same type whose inodes follow each
 * other. /proc does not name a unix socket's peer (only the netlink sock_diag interface does); socketpair() makes
 * both ends one after the other, so their inodes are usually consecutive, but not always: each CPU hands out inode
 * numbers from a batch of its own, and a pair made across the end of a batch (about one in a thousand) is missed.
 * Returns each end mapped to the other. Pure.
 */
export function socketPairs(held: ReadonlySet<number>, rows: readonly UnixSocketRow[]): Map<number, number> {
  const unnamed = new Map<number, UnixSocketRow>();
  for (const row of rows) if (held.has(row.ino) && row.path === undefined && row.state === 3) unnamed.set(row.ino, row);
  const pairs = new Map<number, number>();
  for (const [ino, row] of unnamed) {
    const next = unnamed.get(ino + 1);
    if (next === undefined || next.type !== row.type || pairs.has(ino)) continue;
    pairs.set(ino, ino + 1);
    pairs.set(ino + 1, ino);
  }
  return pairs;
}

/**
 * The most fds read in one look. A self-pipe or a socketpair is known for the process's own by its other end in the
 * fd table, so every fd's link is read (and stat'ed): for a process holding 5 000 (made to stall us, or a busy
 * server) that cost the server 18 ms a look, in a loop (2.8 ms with the cap). Past the cap only the watched fds are
 * read, so the other ends are not found and such a wait counts as one others can end (never a premature answer, only
 * no early one); an eventfd, a timerfd or the terminal is still known by its own link. A wait on more fds than the
 * cap reads none: all count as others'.
 */
const MAX_FDS_READ = 256;

/**
 * The fd table of `pid`: each open fd's link and inode; only `watched`'s when the process holds more than
 * MAX_FDS_READ fds. Empty when the process is gone or not ours to read.
 */
function readOpenFds(pid: number, watched: readonly number[]): Map<number, OpenFd> {
  const fds = new Map<number, OpenFd>();
  let numbers: number[];
  try {
    numbers = readdirSync(`/proc/${pid}/fd`).map(Number);
  } catch {
    return fds;
  }
  if (numbers.length > MAX_FDS_READ) {
    const open = new Set(numbers);
    numbers = watched.length > MAX_FDS_READ ? [] : watched.filter((fd) => open.has(fd));
  }
  for (const fd of numbers) {
    try {
      const path = `/proc/${pid}/fd/${fd}`;
      const link = readProcLink(path);
      if (link !== undefined) fds.set(fd, { link, ino: statSync(path).ino });
    } catch {
      // closed meanwhile
    }
  }
  return fds;
}

/** One fd an epoll set watches: the events asked for, what it is, and its link when it still names the same file. */
export interface EpollWatch {
  fd: number;
  events: number;
  kind: WatchedKind;
  link?: string;
}

/**
 * What the epoll set `epfd` of `pid` watches, each fd sorted (see classifyWatched); undefined when /proc cannot say
 * (the process is gone, `epfd` is not an epoll fd).
 */
export function readEpollSet(pid: number, epfd: number, terminal?: string): EpollWatch[] | undefined {
  if (readProcLink(`/proc/${pid}/fd/${epfd}`) !== 'anon_inode:[eventpoll]') return undefined;
  const text = readProcText(`/proc/${pid}/fdinfo/${epfd}`);
  if (text === undefined) return undefined;
  const targets = parseEpollFdinfo(text);
  const watched = targets.map((target) => target.fd);
  const fds = readOpenFds(pid, watched);
  return classifyIn(pid, targets, terminal, fds).map(({ fd, kind }, i) => {
    const open = fds.get(fd);
    const same = open !== undefined && open.ino === targets[i]!.ino;
    return { fd, events: targets[i]!.events, kind, ...(same ? { link: open.link } : {}) };
  });
}

/**
 * Which of `watched` (fds `pid` has open, e.g. the ones a poll or select waits on) only the process itself can make
 * readable: its eventfds, signalfds, timerfds, self-pipes and socketpairs. Empty when /proc cannot say.
 */
export function ownWakeups(pid: number, watched: readonly number[]): number[] {
  const fds = readOpenFds(pid, watched);
  const targets = watched.flatMap((fd) => {
    const open = fds.get(fd);
    return open ? [{ fd, events: 0, ino: open.ino, sdev: 0 }] : [];
  });
  return classifyIn(pid, targets, undefined, fds)
    .filter((w) => w.kind === 'own-wakeup')
    .map((w) => w.fd);
}

function classifyIn(
  pid: number,
  targets: readonly EpollTarget[],
  terminal: string | undefined,
  fds: ReadonlyMap<number, OpenFd>,
): { fd: number; kind: WatchedKind }[] {
  const watched = new Set(targets.flatMap(({ fd }) => socketInode(fds.get(fd)?.link ?? '') ?? []));
  const pairs = watched.size === 0 ? new Map<number, number>() : ownSocketPairs(pid, watched, socketInodes(fds));
  return classifyWatched(targets, fds, terminal, pairs);
}

/** The most watched sockets of one wait whose peers are looked up (see ownSocketPairs). */
const MAX_SOCKETS_ASKED = 16;

/**
 * The sockets among `watched` whose other end is among `held` (the inodes of all the process's sockets), each mapped
 * to that end: as the kernel says (sock_diag, through our addon) for the sockets of our network namespace, else as
 * /proc/<pid>/net/unix suggests (socketPairs). The kernel's answer is exact; the guess from /proc misses a pair now
 * and then, which left a loop fed by its own socketpair (python -m asyncio's) looking woken from outside for good.
 * Only the watched sockets are asked about: a server holding a thousand connections costs a question per socket its
 * wait watches.
 */
function ownSocketPairs(pid: number, watched: ReadonlySet<number>, held: ReadonlySet<number>): Map<number, number> {
  // The kernel finds a unix socket by inode by walking its whole table: a question per socket of a wait on thousands
  // (a program that made them to stall us) would cost the server a second a look. A loop woken only by itself
  // watches one or two; past the cap none is taken for its own, so the wait counts as one others can end (never a
  // premature answer, only no early one).
  if (watched.size > MAX_SOCKETS_ASKED) return new Map();
  const inodes = [...watched];
  const peers = unixPeers(inodes);
  const pairs = new Map<number, number>();
  const unknown: number[] = [];
  inodes.forEach((ino, i) => {
    const peer = peers?.[i];
    if (peer === undefined) unknown.push(ino);
    else if (held.has(peer)) pairs.set(ino, peer);
  });
  // Where the kernel answered for our network namespace, a socket it does not know there is not a unix socket.
  if (unknown.length === 0 || (peers !== undefined && sameNetwork(pid))) return pairs;
  const guessed = socketPairs(held, parseNetUnix(readProcTable(`/proc/${pid}/net/unix`) ?? ''));
  for (const ino of unknown) {
    const peer = guessed.get(ino);
    if (peer !== undefined) pairs.set(ino, peer);
  }
  return pairs;
}

/** Whether `pid` is in this process's network namespace (whose sockets sock_diag answers for). */
function sameNetwork(pid: number): boolean {
  const ours = readProcLink('/proc/self/ns/net');
  return ours !== undefined && readProcLink(`/proc/${pid}/ns/net`) === ours;
}

/** Each unix socket's peer as the kernel knows it (see NativeHelpers.unixPeers); undefined where it cannot be asked. */
function unixPeers(inodes: readonly number[]): (number | undefined)[] | undefined {
  try {
    return optionalNativeHelpers()?.unixPeers(inodes);
  } catch {
    return undefined; // no sock_diag here (a seccomp filter that refuses netlink)
  }
}

const socketInode = (link: string): number | undefined => {
  const m = /^socket:\[(\d+)\]$/.exec(link);
  return m ? Number(m[1]) : undefined;
};

/** The inodes of the sockets among `fds`. */
function socketInodes(fds: ReadonlyMap<number, OpenFd>): Set<number> {
  const inodes = new Set<number>();
  for (const { link } of fds.values()) {
    const ino = socketInode(link);
    if (ino !== undefined) inodes.add(ino);
  }
  return inodes;
}
