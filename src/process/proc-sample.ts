import { closeSync, openSync, readFileSync, readlinkSync, readSync, readdirSync } from 'node:fs';
import { SYSCALLS, type ForegroundSample, type MemberSample, type SyscallTable } from './input-wait.js';
import { parseProcStat } from './process-tree.js';

/** The syscall table for this machine, or undefined where /proc cannot tell us (not Linux, unknown arch). */
export const syscallTable: SyscallTable | undefined = process.platform === 'linux' ? SYSCALLS[process.arch] : undefined;

const MAX_WATCHED_FDS = 1024;

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

function link(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

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

/** The fds a select (fd_set bitmap) or poll (struct pollfd array) call watches for reading. */
function watchedFds(pid: number, nr: number, args: string[], table: SyscallTable): number[] | undefined {
  const arg = (i: number) => Number.parseInt(args[i] ?? '', 16);
  if (table.select.includes(nr)) {
    const nfds = Math.min(arg(0), MAX_WATCHED_FDS);
    const readfds = arg(1);
    if (readfds === 0 || nfds === 0) return [];
    const bits = readMemory(pid, readfds, Math.ceil(nfds / 64) * 8);
    if (!bits) return undefined;
    const fds: number[] = [];
    for (let fd = 0; fd < nfds; fd++) if (((bits[fd >> 3] ?? 0) >> (fd & 7)) & 1) fds.push(fd);
    return fds;
  }
  const count = Math.min(arg(1), 64);
  const entries = readMemory(pid, arg(0), count * 8);
  if (!entries) return undefined;
  const fds: number[] = [];
  for (let i = 0; i < count; i++) {
    const fd = entries.readInt32LE(i * 8);
    const events = entries.readInt16LE(i * 8 + 4);
    if (fd >= 0 && events & 0x1) fds.push(fd); // POLLIN
  }
  return fds;
}

function sampleMember(pid: number, table: SyscallTable): MemberSample | undefined {
  const statText = readText(`/proc/${pid}/stat`);
  const stat = statText ? parseProcStat(statText) : undefined;
  if (!stat) return undefined;
  const raw = readText(`/proc/${pid}/syscall`)?.trim();
  let syscall: MemberSample['syscall'];
  if (raw === 'running') syscall = 'running';
  else if (raw) {
    const [nr, ...args] = raw.split(' ');
    syscall = { nr: Number(nr), args };
  }
  const fdTargets: Record<number, string> = {};
  let watched: number[] | undefined;
  if (typeof syscall === 'object') {
    const fds = table.read.includes(syscall.nr)
      ? [Number.parseInt(syscall.args[0] ?? '', 16)]
      : table.select.includes(syscall.nr) || table.poll.includes(syscall.nr)
        ? (watched = watchedFds(pid, syscall.nr, syscall.args, table)) ?? []
        : [];
    for (const fd of fds) {
      const target = link(`/proc/${pid}/fd/${fd}`);
      if (target !== undefined) fdTargets[fd] = target;
    }
  }
  const runCount = Number(readText(`/proc/${pid}/schedstat`)?.split(' ')[2] ?? Number.NaN);
  const otherThreads: MemberSample['otherThreads'] = [];
  const threadCount = Number(statText?.slice(statText.lastIndexOf(')') + 2).split(' ')[17]);
  if (threadCount > 1) {
    for (const tid of safeReaddir(`/proc/${pid}/task`)) {
      if (Number(tid) === pid) continue;
      const t = parseProcStat(readText(`/proc/${pid}/task/${tid}/stat`) ?? '');
      if (t) otherThreads.push({ tid: t.pid, state: t.state });
    }
  }
  return { pid, state: stat.state, syscall, fdTargets, ...(watched ? { watchedFds: watched } : {}), runCount, otherThreads };
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** The leader's descendants (itself included), walking /proc/<pid>/task/<tid>/children. */
function descendants(leader: number): number[] {
  const out: number[] = [];
  const stack = [leader];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    for (const tid of safeReaddir(`/proc/${pid}/task`)) {
      const children = readText(`/proc/${pid}/task/${tid}/children`);
      if (children) for (const child of children.trim().split(' ')) if (child) stack.push(Number(child));
    }
  }
  return out;
}

/**
 * What the foreground process group of the terminal led by `leader` is doing right now. Undefined when it cannot
 * be read (the leader is gone, not Linux). Processes that vanish while we read are skipped, never fatal.
 */
export function sampleForeground(leader: number, table: SyscallTable): ForegroundSample | undefined {
  const leaderStat = parseProcStat(readText(`/proc/${leader}/stat`) ?? '');
  if (!leaderStat || leaderStat.tpgid <= 0) return undefined;
  const members: MemberSample[] = [];
  for (const pid of descendants(leader)) {
    const stat = pid === leader ? leaderStat : parseProcStat(readText(`/proc/${pid}/stat`) ?? '');
    if (stat?.pgid !== leaderStat.tpgid) continue;
    const member = sampleMember(pid, table);
    if (member) members.push(member);
  }
  return { tpgid: leaderStat.tpgid, members };
}

/** Run counts of the foreground group now, to tell later whether a reader has run since. */
export function runCounts(sample: ForegroundSample | undefined): Map<number, number> {
  return new Map((sample?.members ?? []).map((m) => [m.pid, m.runCount]));
}
