import { closeSync, openSync, readSync, readdirSync } from 'node:fs';
import { SYSCALLS, type ForegroundSample, type MemberSample, type SyscallTable } from './decide.js';
import { readProcLink, readProcText } from '../linux/proc-read.js';
import { parseProcStat } from '../linux/process-tree.js';
import { ownWakeups } from '../linux/epoll.js';

/** The syscall table for this machine, or undefined where /proc cannot tell us (not Linux, unknown arch). */
export const syscallTable: SyscallTable | undefined = process.platform === 'linux' ? SYSCALLS[process.arch] : undefined;

/** FD_SETSIZE; also the most poll entries we read. Beyond it we cannot tell what is watched. */
const MAX_WATCHED_FDS = 1024;
const POLLIN = 0x1;
const POLLRDNORM = 0x40;

function readMemory(pid: number, address: number, length: number): Buffer | undefined {
  if (address === 0 || length <= 0) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
    const buf = Buffer.alloc(length);
    return readSync(fd, buf, 0, length, address) === length ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Watched {
  /** Watched for reading. */
  read: number[];
  /** Watched for anything else: writing, exceptions, priority data. */
  other: number[];
}

/** The fds set in a select fd_set bitmap of `nfds` bits at `address` (0: no set). */
function fdSet(pid: number, address: number, nfds: number): number[] | undefined {
  if (address === 0 || nfds === 0) return [];
  const bits = readMemory(pid, address, Math.ceil(nfds / 64) * 8);
  if (!bits) return undefined;
  const fds: number[] = [];
  for (let fd = 0; fd < nfds; fd++) if (((bits[fd >> 3] ?? 0) >> (fd & 7)) & 1) fds.push(fd);
  return fds;
}

/** The fds a select (fd_set bitmaps) or poll (struct pollfd array) call watches, and for what. */
function watchedFds(pid: number, nr: number, args: string[], table: SyscallTable): Watched | undefined {
  const arg = (i: number) => Number.parseInt(args[i] ?? '', 16);
  if (table.select.includes(nr)) {
    const nfds = arg(0);
    if (!(nfds >= 0 && nfds <= MAX_WATCHED_FDS)) return undefined;
    const [read, write, except] = [fdSet(pid, arg(1), nfds), fdSet(pid, arg(2), nfds), fdSet(pid, arg(3), nfds)];
    if (!read || !write || !except) return undefined;
    return { read, other: [...write, ...except] };
  }
  const count = arg(1);
  if (!(count >= 0 && count <= MAX_WATCHED_FDS)) return undefined;
  if (count === 0) return { read: [], other: [] };
  const entries = readMemory(pid, arg(0), count * 8);
  if (!entries) return undefined;
  const watched: Watched = { read: [], other: [] };
  for (let i = 0; i < count; i++) {
    const fd = entries.readInt32LE(i * 8);
    const events = entries.readInt16LE(i * 8 + 4);
    if (fd < 0) continue; // poll skips negative fds
    if (events & (POLLIN | POLLRDNORM)) watched.read.push(fd);
    if (events & ~(POLLIN | POLLRDNORM)) watched.other.push(fd);
  }
  return watched;
}

/**
 * Whether a select or poll waits with no timeout: select and pselect6 take a timeout pointer (argument 5), ppoll
 * one too (argument 3), NULL meaning forever; plain poll takes milliseconds, negative meaning forever.
 */
function waitsForever(nr: number, args: string[], table: SyscallTable): boolean {
  const arg = (i: number) => BigInt(args[i] ?? '0x1');
  if (table.select.includes(nr)) return arg(4) === 0n;
  if (table.plainPoll.includes(nr)) return BigInt.asIntN(32, arg(2)) < 0n;
  return arg(2) === 0n;
}

function sampleMember(pid: number, table: SyscallTable): MemberSample | undefined {
  const statText = readProcText(`/proc/${pid}/stat`);
  const stat = statText ? parseProcStat(statText) : undefined;
  if (!stat) return undefined;
  const raw = readProcText(`/proc/${pid}/syscall`)?.trim();
  let syscall: MemberSample['syscall'];
  if (raw === 'running') syscall = 'running';
  else if (raw) {
    const [nr, ...args] = raw.split(' ');
    syscall = { nr: Number(nr), args };
  }
  const fdTargets: Record<number, string> = {};
  let watched: Watched | undefined;
  if (typeof syscall === 'object') {
    let fds: number[] = [];
    if (table.read.includes(syscall.nr)) {
      fds = [Number.parseInt(syscall.args[0] ?? '', 16)];
    } else if (table.select.includes(syscall.nr) || table.poll.includes(syscall.nr)) {
      watched = watchedFds(pid, syscall.nr, syscall.args, table);
      if (watched) fds = [...watched.read, ...watched.other];
    }
    for (const fd of new Set(fds)) {
      const target = readProcLink(`/proc/${pid}/fd/${fd}`);
      if (target !== undefined) fdTargets[fd] = target;
    }
  }
  const runCount = Number(readProcText(`/proc/${pid}/schedstat`)?.split(' ')[2] ?? Number.NaN);
  const otherThreads: MemberSample['otherThreads'] = [];
  const threadCount = Number(statText?.slice(statText.lastIndexOf(')') + 2).split(' ')[17]);
  if (threadCount > 1) {
    for (const tid of safeReaddir(`/proc/${pid}/task`)) {
      if (Number(tid) === pid) continue;
      const t = parseProcStat(readProcText(`/proc/${pid}/task/${tid}/stat`) ?? '');
      if (!t) continue;
      const nr = Number.parseInt(readProcText(`/proc/${pid}/task/${tid}/syscall`) ?? '', 10);
      otherThreads.push({ tid: t.pid, state: t.state, ...(Number.isInteger(nr) ? { syscall: nr } : {}) });
    }
  }
  let ownWakeupFds: number[] | undefined;
  if (watched && typeof syscall === 'object' && waitsForever(syscall.nr, syscall.args, table)) {
    // Only worth the fd table when something beside the terminal is watched.
    const beside = [...watched.read, ...watched.other].filter((fd) => !fdTargets[fd]?.startsWith('/dev/'));
    if (beside.length > 0) ownWakeupFds = ownWakeups(pid, beside);
  }
  return {
    pid,
    state: stat.state,
    syscall,
    fdTargets,
    ...(watched ? { watchedFds: watched.read, otherWatchedFds: watched.other } : {}),
    ...(ownWakeupFds ? { ownWakeupFds } : {}),
    runCount,
    otherThreads,
  };
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** The leader's descendants (itself included, depth 0), walking /proc/<pid>/task/<tid>/children. */
function descendants(leader: number): { pid: number; depth: number }[] {
  const out: { pid: number; depth: number }[] = [];
  const stack = [{ pid: leader, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    for (const tid of safeReaddir(`/proc/${next.pid}/task`)) {
      const children = readProcText(`/proc/${next.pid}/task/${tid}/children`);
      if (!children) continue;
      for (const child of children.trim().split(' '))
        if (child) stack.push({ pid: Number(child), depth: next.depth + 1 });
    }
  }
  return out;
}

/**
 * What the foreground process group of the terminal led by `leader` is doing right now. Undefined when it cannot
 * be read (the leader is gone, not Linux). Processes that vanish while we read are skipped, never fatal.
 */
export function sampleForeground(
  leader: number,
  table: SyscallTable,
  supervisorDepth = 0,
): ForegroundSample | undefined {
  const leaderStat = parseProcStat(readProcText(`/proc/${leader}/stat`) ?? '');
  if (!leaderStat || leaderStat.tpgid <= 0) return undefined;
  const members: MemberSample[] = [];
  for (const { pid, depth } of descendants(leader)) {
    const stat = pid === leader ? leaderStat : parseProcStat(readProcText(`/proc/${pid}/stat`) ?? '');
    if (stat?.pgid !== leaderStat.tpgid) continue;
    const member = sampleMember(pid, table);
    if (member) members.push(depth < supervisorDepth ? { ...member, supervisor: true } : member);
  }
  return { tpgid: leaderStat.tpgid, members };
}

/** Run counts of the foreground group now, to tell later whether a reader has run since. */
export function runCounts(sample: ForegroundSample | undefined): Map<number, number> {
  return new Map((sample?.members ?? []).map((m) => [m.pid, m.runCount]));
}
