/**
 * Is the program in a terminal blocked reading that terminal? A pure decision over what /proc said, so it can be
 * tested on recorded samples. The reader that gathers the samples lives in proc-sample.ts.
 */

/** Syscall numbers that matter, per architecture (they differ between x86-64 and arm64). */
export interface SyscallTable {
  read: number[];
  select: number[];
  poll: number[];
  /** The polls whose timeout is an int of milliseconds (the others take a timespec pointer). */
  plainPoll: number[];
  waitChild: number[];
  /** Waits that are ambiguous: an event loop or a lock may be waiting on anything. */
  ambiguous: number[];
  /** Waits a thread comes out of by itself: timed sleeps, and the network (accept, connect, recv). */
  goesOn: number[];
}

export const SYSCALLS: Readonly<Record<string, SyscallTable>> = {
  x64: {
    read: [0, 19],
    select: [23, 270],
    poll: [7, 271],
    plainPoll: [7],
    waitChild: [61, 247],
    ambiguous: [232, 281, 441, 202],
    // nanosleep, clock_nanosleep, accept, accept4, connect, recvfrom, recvmsg, recvmmsg
    goesOn: [35, 230, 43, 288, 42, 45, 47, 299],
  },
  arm64: {
    read: [63, 65],
    select: [72],
    poll: [73],
    plainPoll: [],
    waitChild: [260, 95],
    ambiguous: [22, 441, 98],
    // nanosleep, clock_nanosleep, accept, accept4, connect, recvfrom, recvmsg, recvmmsg
    goesOn: [101, 115, 202, 242, 203, 207, 212, 243],
  },
};

export interface ThreadSample {
  tid: number;
  state: string;
  /** The syscall it is blocked in, when it is blocked in one and /proc could say. */
  syscall?: number;
}

export interface MemberSample {
  pid: number;
  /** One letter from /proc/<pid>/stat: R running, S sleeping, D disk, Z zombie, T stopped... */
  state: string;
  /** Syscall number and hex args from /proc/<pid>/syscall; 'running' when not in one; undefined if unreadable. */
  syscall: { nr: number; args: string[] } | 'running' | undefined;
  /** Link targets of the fds the syscall involves (read's fd, or the fds select/poll watch). */
  fdTargets: Record<number, string>;
  /** For select/poll: the fds it watches for reading, when they could be read from its memory. */
  watchedFds?: number[];
  /** For select/poll: the fds it watches for anything else (writing, exceptions), read along with watchedFds. */
  otherWatchedFds?: number[];
  /**
   * For a select/poll with no timeout: the watched fds only the process itself can wake (an eventfd, a self-pipe, a
   * socketpair it holds both ends of), as gdb watches beside its terminal. Left out when the wait has a timeout: a
   * program whose timer is due may print without input.
   */
  ownWakeupFds?: number[];
  /** Times scheduled (3rd field of /proc/<pid>/schedstat): changes when the process has run. */
  runCount: number;
  /** A wrapper that only relays (the sandbox's bubblewrap and its init): counted as waiting for its child. */
  supervisor?: boolean;
  /** The other threads, when there are any. */
  otherThreads: ThreadSample[];
}

export interface ForegroundSample {
  /** The terminal's foreground process group. */
  tpgid: number;
  members: MemberSample[];
}

export type MemberActivity = 'tty-read' | 'pipe-read' | 'child-wait' | 'busy' | 'unknown' | 'gone';

export type InputWaitVerdict =
  { kind: 'waiting'; readers: MemberSample[] } | { kind: 'busy'; reason: string } | { kind: 'unknown'; reason: string };

const isTerminal = (target: string | undefined, ptsPath: string) => target === ptsPath || target === '/dev/tty';

/** What one member of the foreground group is doing. */
export function classifyMember(member: MemberSample, ptsPath: string, table: SyscallTable): MemberActivity {
  if (member.state === 'Z' || member.state === 'X') return 'gone';
  if (member.supervisor) return 'child-wait';
  if (member.state === 'R' || member.state === 'D' || member.syscall === 'running') return 'busy';
  if (member.state === 'T' || member.state === 't' || member.syscall === undefined) return 'unknown';
  // Another thread that computes, sleeps or waits on the network may print without any input. Threads parked on a
  // lock or an event loop (thread pools, runtimes) are the norm and say nothing.
  const goesOn = (t: ThreadSample) =>
    t.state === 'R' || t.state === 'D' || (t.syscall !== undefined && table.goesOn.includes(t.syscall));
  if (member.otherThreads.some(goesOn)) return 'busy';
  const { nr, args } = member.syscall;
  if (table.read.includes(nr)) {
    const target = member.fdTargets[Number.parseInt(args[0] ?? '', 16)];
    if (isTerminal(target, ptsPath)) return 'tty-read';
    return target?.startsWith('pipe:') ? 'pipe-read' : 'busy';
  }
  if (table.select.includes(nr) || table.poll.includes(nr)) {
    const fds = member.watchedFds;
    if (fds === undefined) return 'unknown';
    if (!fds.some((fd) => isTerminal(member.fdTargets[fd], ptsPath))) return 'busy';
    // Watching the terminal and something else (a socket to read, or to write to): it may go on without input,
    // unless the something else is its own wake-up and no timeout ends the wait.
    const all = [...fds, ...(member.otherWatchedFds ?? [])];
    const own = new Set(member.ownWakeupFds ?? []);
    const quiet = (fd: number) => isTerminal(member.fdTargets[fd], ptsPath) || own.has(fd);
    return all.every(quiet) ? 'tty-read' : 'unknown';
  }
  if (table.waitChild.includes(nr)) return 'child-wait';
  if (table.ambiguous.includes(nr)) return 'unknown';
  return 'busy'; // sleeping, connecting, accepting, writing...
}

/**
 * Waiting means: every live member of the foreground group is reading the terminal, reading a pipe or waiting
 * for a child, and at least one reads the terminal. When input was just written (`baseline` holds run counts
 * from before the write), a reader must also have run since: otherwise it may still sit in its old read, about
 * to wake up and consume what we wrote.
 */
export function decideInputWait(
  sample: ForegroundSample,
  ptsPath: string,
  table: SyscallTable,
  baseline?: ReadonlyMap<number, number>,
): InputWaitVerdict {
  const readers: MemberSample[] = [];
  let live = 0;
  for (const member of sample.members) {
    const activity = classifyMember(member, ptsPath, table);
    if (activity === 'gone') continue;
    live++;
    if (activity === 'busy') return { kind: 'busy', reason: `pid ${member.pid} is busy` };
    if (activity === 'unknown') return { kind: 'unknown', reason: `pid ${member.pid} waits on something ambiguous` };
    if (activity === 'tty-read') readers.push(member);
  }
  if (live === 0) return { kind: 'unknown', reason: 'no live process in the foreground group' };
  if (readers.length === 0) return { kind: 'busy', reason: 'nothing reads the terminal' };
  // A run count that could not be read (NaN) is no evidence of having run.
  if (baseline && !readers.some((r) => Number.isFinite(r.runCount) && baseline.get(r.pid) !== r.runCount)) {
    return { kind: 'busy', reason: 'the reader has not run since the input was written' };
  }
  return { kind: 'waiting', readers };
}
