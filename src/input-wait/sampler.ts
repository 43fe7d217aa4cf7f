import { readdirSync } from 'node:fs';
import {
  SYSCALLS,
  type ForegroundSample,
  type MemberSample,
  type SyscallTable,
  type ThreadSample,
  type WaitSample,
} from './decide.js';
import { fileId, readProcFiles, readProcLinkTarget, readProcText, readProcessMemory } from '../linux/proc-read.js';
import { parseProcStat, procStatThreads, type ProcStat } from '../linux/process-tree.js';
import { ownWakeups, readEpollSet } from '../linux/epoll.js';

/** The syscall table for this machine, or undefined where /proc cannot tell us (not Linux, unknown arch). */
export const syscallTable: SyscallTable | undefined = process.platform === 'linux' ? SYSCALLS[process.arch] : undefined;

/** FD_SETSIZE; also the most poll entries we read. Beyond it we cannot tell what is watched. */
const MAX_WATCHED_FDS = 1024;
const POLLIN = 0x1;
const POLLRDNORM = 0x40;

interface Watched {
  /** Watched for reading. */
  read: number[];
  /** Watched for anything else: writing, exceptions, priority data. */
  other: number[];
}

/** The fds set in a select fd_set bitmap of `nfds` bits at `address` (0: no set). */
function fdSet(pid: number, address: number, nfds: number): number[] | undefined {
  if (address === 0 || nfds === 0) return [];
  const bits = readProcessMemory(pid, address, Math.ceil(nfds / 64) * 8);
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
  const entries = readProcessMemory(pid, arg(0), count * 8);
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

/** epoll_pwait2, the same number everywhere: its timeout is a timespec pointer (the other epolls take an int). */
const EPOLL_PWAIT2 = 441;

/**
 * The timeout a select, poll or epoll wait was called with, in ms; -1 when it waits forever. select, pselect6 and
 * ppoll take a pointer to a timeval or timespec (NULL: forever), poll and epoll_wait an int (negative: forever).
 */
function timeoutMs(pid: number, nr: number, args: string[], table: SyscallTable): number | undefined {
  const arg = (i: number) => BigInt(args[i] ?? 'x');
  const int = (v: bigint) => Math.max(-1, Number(BigInt.asIntN(32, v)));
  try {
    if (table.plainPoll.includes(nr)) return int(arg(2));
    if (table.epoll.includes(nr) && nr !== EPOLL_PWAIT2) return int(arg(3));
    const pointer = table.select.includes(nr) ? arg(4) : table.epoll.includes(nr) ? arg(3) : arg(2);
    if (pointer === 0n) return -1;
    const time = readProcessMemory(pid, Number(pointer), 16);
    if (!time) return undefined;
    const fraction = Number(time.readBigInt64LE(8)) / (table.timevalSelect.includes(nr) ? 1e3 : 1e6);
    return Number(time.readBigInt64LE(0)) * 1000 + fraction;
  } catch {
    return undefined; // an arg /proc did not give
  }
}

const EPOLLIN = 0x1;
const EPOLLPRI = 0x2;
const EPOLLRDNORM = 0x40;
const EPOLLRDHUP = 0x2000;
/** Events beside these (EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE, EPOLLWAKEUP) only say how to report. */
const EPOLL_READ = EPOLLIN | EPOLLPRI | EPOLLRDNORM | EPOLLRDHUP;
/** Asking to write (EPOLLOUT, EPOLLWRNORM, EPOLLWRBAND) or for EPOLLMSG; errors and hang-ups come unasked. */
const EPOLL_WRITE = 0x4 | 0x100 | 0x200 | 0x400;
const EPOLL_ANY = EPOLL_READ | EPOLL_WRITE;

/** The session's terminal as the sampler knows it: its path on this machine and which file that is. */
export interface SessionTerminal {
  path: string;
  /** Device and inode of `path` (see fileId); undefined when it could not be read. */
  id: string | undefined;
}

/**
 * The name a watched fd goes by in the decision, given what file it is (`fdId`, see fileId). The session's terminal
 * is known by which file it is, not by its name: inside the bubblewrap sandbox the same pty shows as /dev/console
 * (bubblewrap binds the terminal it was given there, so a program that opens /dev/tty in there, like less, or that
 * reopens its standard fds by their tty name, like node's libuv, holds it under that name), and the sandbox's own
 * devpts has /dev/pts/N names of its own, one of which may equal the session's. An fd that is the terminal's file
 * is named as the terminal; one named like it that is another file (or has gone) is marked as not it; /dev/tty,
 * always the caller's controlling terminal, and any other target stay as they are, as does every target when the
 * terminal's own identity could not be read. Pure.
 */
export function terminalName(target: string, fdId: string | undefined, terminal: SessionTerminal | undefined): string {
  if (terminal?.id === undefined || !target.startsWith('/dev/') || target === '/dev/tty') return target;
  if (fdId === terminal.id) return terminal.path;
  return target === terminal.path ? `${target} (another terminal of that name)` : target;
}

/** Whether a link target may be a terminal, and so is worth a stat to tell which. */
const mayBeTerminal = (target: string) => target.startsWith('/dev/') && target !== '/dev/tty' && target !== '/dev/null';

/**
 * What a read, select, poll or epoll wait of `pid` (any of its threads: they share fds and memory) waits on, from
 * the text of the thread's /proc syscall file.
 */
function sampleWait(
  pid: number,
  syscallText: string | undefined,
  table: SyscallTable,
  terminal: SessionTerminal | undefined,
): WaitSample {
  const raw = syscallText?.trim();
  if (raw === 'running') return { syscall: 'running', fdTargets: {} };
  if (!raw) return { syscall: undefined, fdTargets: {} };
  const [nr, ...args] = raw.split(' ');
  const syscall = { nr: Number(nr), args };
  const fdTargets: Record<number, string> = {};
  // `id`: which file the fd is, when already read with its link; else read here, and only for a possible terminal.
  const name = (fd: number, target: string, id?: string) => {
    if (!mayBeTerminal(target)) fdTargets[fd] = target;
    else fdTargets[fd] = terminalName(target, id ?? fileId(`/proc/${pid}/fd/${fd}`), terminal);
  };
  const link = (fd: number) => {
    const found = readProcLinkTarget(`/proc/${pid}/fd/${fd}`);
    if (found !== undefined) name(fd, found.target, found.id);
  };
  if (table.read.includes(syscall.nr)) {
    link(Number.parseInt(args[0] ?? '', 16));
    return { syscall, fdTargets };
  }
  if (table.epoll.includes(syscall.nr)) {
    const set = readEpollSet(pid, Number.parseInt(args[0] ?? '', 16));
    if (!set) return { syscall, fdTargets };
    const live = set.filter((w) => w.events & EPOLL_ANY); // events 0: disabled until re-armed
    for (const w of live) if (w.link !== undefined) name(w.fd, w.link);
    const timeout = timeoutMs(pid, syscall.nr, args, table);
    return {
      syscall,
      fdTargets,
      watchedFds: live.filter((w) => w.events & EPOLL_READ).map((w) => w.fd),
      otherWatchedFds: live.filter((w) => w.events & EPOLL_WRITE).map((w) => w.fd),
      ownWakeupFds: live.filter((w) => w.kind === 'own-wakeup').map((w) => w.fd),
      ...(timeout === undefined ? {} : { timeoutMs: timeout }),
    };
  }
  if (!table.select.includes(syscall.nr) && !table.poll.includes(syscall.nr)) return { syscall, fdTargets };
  const watched = watchedFds(pid, syscall.nr, args, table);
  if (!watched) return { syscall, fdTargets };
  const all = [...new Set([...watched.read, ...watched.other])];
  all.forEach(link);
  // The fd table is only worth reading when something beside the terminal (/dev/...) is watched.
  const beside = all.filter((fd) => !fdTargets[fd]?.startsWith('/dev/'));
  const timeout = timeoutMs(pid, syscall.nr, args, table);
  return {
    syscall,
    fdTargets,
    watchedFds: watched.read,
    otherWatchedFds: watched.other,
    ...(beside.length > 0 ? { ownWakeupFds: ownWakeups(pid, beside) } : {}),
    ...(timeout === undefined ? {} : { timeoutMs: timeout }),
  };
}

/**
 * A wrapper that only relays (see TerminalHandle.supervisorDepth): the decision counts it as waiting for its child
 * whatever it waits on, so what it waits on is not read (its poll on a signal fd and a seccomp listener would cost a
 * read of its whole fd table each probe); only whether it is gone, and its run count, which must not change between
 * a sample and its confirmation.
 */
function sampleRelay(pid: number, stat: ProcStat): MemberSample {
  return {
    pid,
    state: stat.state,
    syscall: undefined,
    fdTargets: {},
    runCount: runs(pid),
    supervisor: true,
    otherThreads: [],
  };
}

/**
 * What one process's files said, read in one go in this order: its run count, stat, its main thread's children (the
 * walk goes on from there) and syscall (a member's sample begins with the run count and ends with its wait).
 */
interface ProcessFiles {
  runsBefore: number;
  statText: string | undefined;
  stat: ProcStat | undefined;
  syscallText: string | undefined;
  children: string | undefined;
}

/** `relay`: a wrapper that only relays (see sampleRelay), whose wait is not read. */
function readProcess(pid: number, relay = false): ProcessFiles {
  const [schedstat, statText, children, syscallText] = readProcFiles([
    `/proc/${pid}/schedstat`,
    `/proc/${pid}/stat`,
    `/proc/${pid}/task/${pid}/children`,
    ...(relay ? [] : [`/proc/${pid}/syscall`]),
  ]);
  return {
    runsBefore: runsOf(schedstat),
    statText,
    stat: statText === undefined ? undefined : parseProcStat(statText),
    syscallText,
    children,
  };
}

function sampleMember(
  pid: number,
  files: ProcessFiles,
  table: SyscallTable,
  terminal: SessionTerminal | undefined,
): MemberSample | undefined {
  // The run count is read before the wait and again after it. A process that ran in between (woken by the input
  // just written) can show the wait it was in before beside the count of after: a torn sample, which would pass for
  // a reader that has run since the input and waits again, while it is still at work on it (vim, 1 time in ~1 000
  // on a loaded machine, answered before it drew what was typed). Such a sample is of a running process.
  const { runsBefore, statText, stat } = files;
  if (!stat || statText === undefined) return undefined;
  const read = sampleWait(pid, files.syscallText, table, terminal);
  // Only a timed wait can be a tick (see loopTimerAllows); -1 is no timeout.
  const timed = read.timeoutMs !== undefined && read.timeoutMs >= 0;
  const [schedstat, sched] = readProcFiles(
    timed ? [`/proc/${pid}/schedstat`, `/proc/${pid}/sched`] : [`/proc/${pid}/schedstat`],
  );
  const runCount = runsOf(schedstat);
  const torn = Number.isFinite(runsBefore) && runCount !== runsBefore;
  const wait: WaitSample = torn ? { syscall: 'running', fdTargets: {} } : read;
  const waitStartedMs = timed && !torn ? lastRanAt(sched) : undefined;
  const otherThreads: ThreadSample[] = [];
  if (procStatThreads(statText) > 1) {
    for (const tid of safeReaddir(`/proc/${pid}/task`)) {
      if (Number(tid) === pid) continue;
      const [threadStat, syscallText] = readProcFiles([
        `/proc/${pid}/task/${tid}/stat`,
        `/proc/${pid}/task/${tid}/syscall`,
      ]);
      const t = parseProcStat(threadStat ?? '');
      if (!t) continue;
      const nr = Number.parseInt(syscallText ?? '', 10);
      const thread: ThreadSample = { tid: t.pid, state: t.state, ...(Number.isInteger(nr) ? { syscall: nr } : {}) };
      // A thread that may read the terminal for the loop (python -m asyncio's REPL): what it waits on.
      const reads = table.read.includes(nr) || table.select.includes(nr) || table.poll.includes(nr);
      if (reads) thread.wait = sampleWait(pid, syscallText, table, terminal);
      otherThreads.push(thread);
    }
  }
  return {
    pid,
    state: torn ? 'R' : stat.state,
    ...wait,
    runCount,
    ...(waitStartedMs === undefined ? {} : { waitStartedMs }),
    otherThreads,
  };
}

/** How many times the process has been put on a CPU (/proc/<pid>/schedstat), NaN when unreadable. */
function runs(pid: number): number {
  return runsOf(readProcText(`/proc/${pid}/schedstat`));
}

/** The run count in the text of a /proc/<pid>/schedstat; NaN when there is none. */
const runsOf = (schedstat: string | undefined) => Number(schedstat?.split(' ')[2] ?? Number.NaN);

/**
 * When the process last started to run (`se.exec_start`, ms), from the text of its /proc/<pid>/sched; undefined where
 * it has no such line.
 */
function lastRanAt(text: string | undefined): number | undefined {
  const match = text === undefined ? null : /^se\.exec_start\s*:\s*([\d.]+)$/m.exec(text);
  const value = match ? Number(match[1]) : Number.NaN;
  return Number.isFinite(value) ? value : undefined;
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** The pids in a /proc/<pid>/task/<tid>/children text. */
const childPids = (text: string | undefined) => (text ? text.trim().split(' ').filter(Boolean).map(Number) : []);

/** The children of every thread of `pid` but its main one (whose list came with its files). */
function otherThreadsChildren(pid: number): number[] {
  const tids = safeReaddir(`/proc/${pid}/task`).filter((tid) => Number(tid) !== pid);
  return readProcFiles(tids.map((tid) => `/proc/${pid}/task/${tid}/children`)).flatMap(childPids);
}

/** Which file each session terminal is, read once: a terminal's path names the same file as long as it is open. */
const terminalIds = new WeakMap<object, string>();

function sessionTerminal(terminal: { path?: string }): SessionTerminal | undefined {
  if (terminal.path === undefined) return undefined;
  let id = terminalIds.get(terminal);
  if (id === undefined) {
    id = fileId(terminal.path);
    if (id !== undefined) terminalIds.set(terminal, id);
  }
  return { path: terminal.path, id };
}

/**
 * What the foreground process group of the terminal led by `leader` is doing right now. Undefined when it cannot
 * be read (the leader is gone, not Linux). Processes that vanish while we read are skipped, never fatal.
 * `terminal.path` is the session's terminal: an fd that is that file under another name counts as it (see
 * terminalName); without it, fds are taken by their names. `terminal.supervisorDepth`: see TerminalHandle.
 *
 * The leader's descendants are walked through /proc/<pid>/task/<tid>/children; each process's files are read in one
 * go (readProcess), a member's sample beginning with them.
 */
export function sampleForeground(
  leader: number,
  table: SyscallTable,
  terminal: { path?: string; supervisorDepth?: number } = {},
): ForegroundSample | undefined {
  const supervisorDepth = terminal.supervisorDepth ?? 0;
  const session = sessionTerminal(terminal);
  const first = readProcess(leader, supervisorDepth > 0);
  const tpgid = first.stat?.tpgid;
  if (tpgid === undefined || tpgid <= 0) return undefined;
  const members: MemberSample[] = [];
  const stack: { pid: number; depth: number; files?: ProcessFiles }[] = [{ pid: leader, depth: 0, files: first }];
  while (stack.length > 0) {
    const { pid, depth, files = readProcess(pid, depth < supervisorDepth) } = stack.pop()!;
    const { stat, statText } = files;
    if (!stat || statText === undefined) continue; // gone
    const children = childPids(files.children);
    if (procStatThreads(statText) > 1) children.push(...otherThreadsChildren(pid));
    for (const child of children) stack.push({ pid: child, depth: depth + 1 });
    if (stat.pgid !== tpgid) continue;
    const member = depth < supervisorDepth ? sampleRelay(pid, stat) : sampleMember(pid, files, table, session);
    if (member) members.push(member);
  }
  return { tpgid, members };
}

/**
 * Whether no process of `sample`'s foreground group has run, or been woken, since it was taken, and the group is
 * still the terminal's foreground: then each is where the sample saw it (a process that has not run has not changed
 * its wait), and nothing has joined the group (a process joins by a fork or a setpgid, run by a member, or by the
 * leader handing over the terminal). The state is read beside the run count: a process woken and not yet on a CPU
 * (`tr` of `cat | tr` once `cat` has written to the pipe) shows R with its count as it was. Reads only each
 * member's stat and run count, and the leader's stat.
 */
export function unchangedSince(leader: number, sample: ForegroundSample): boolean {
  // The leader's stat is read once: as a member's when it is one (a shell at its prompt), else on its own.
  const leaderAt = sample.members.findIndex((m) => m.pid === leader);
  const texts = readProcFiles([
    ...sample.members.flatMap((m) => [`/proc/${m.pid}/stat`, `/proc/${m.pid}/schedstat`]),
    ...(leaderAt >= 0 ? [] : [`/proc/${leader}/stat`]),
  ]);
  const stats = sample.members.map((_, i) => parseProcStat(texts[2 * i] ?? ''));
  const leaderStat = leaderAt >= 0 ? stats[leaderAt] : parseProcStat(texts.at(-1) ?? '');
  if (leaderStat?.tpgid !== sample.tpgid) return false;
  return sample.members.every(
    (m, i) => Number.isFinite(m.runCount) && stats[i]?.state === m.state && runsOf(texts[2 * i + 1]) === m.runCount,
  );
}

/** Run counts of the foreground group now, to tell later whether a reader has run since. */
export function runCounts(sample: ForegroundSample | undefined): Map<number, number> {
  return new Map((sample?.members ?? []).map((m) => [m.pid, m.runCount]));
}
