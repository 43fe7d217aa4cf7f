/**
 * Is the program in a terminal blocked reading that terminal? A pure decision over what /proc said, so it can be
 * tested on recorded samples. The reader that gathers the samples lives in sampler.ts.
 */

/** Syscall numbers that matter, per architecture (they differ between x86-64 and arm64). */
export interface SyscallTable {
  read: number[];
  select: number[];
  /** The selects whose timeout is a struct timeval (the others take a timespec). */
  timevalSelect: number[];
  poll: number[];
  /** The polls whose timeout is an int of milliseconds (the others take a timespec pointer). */
  plainPoll: number[];
  /** epoll_wait and epoll_pwait (an int of milliseconds), epoll_pwait2 (a timespec pointer). */
  epoll: number[];
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
    timevalSelect: [23],
    poll: [7, 271],
    plainPoll: [7],
    epoll: [232, 281, 441],
    waitChild: [61, 247],
    ambiguous: [232, 281, 441, 202],
    // nanosleep, clock_nanosleep, accept, accept4, connect, recvfrom, recvmsg, recvmmsg
    goesOn: [35, 230, 43, 288, 42, 45, 47, 299],
  },
  arm64: {
    read: [63, 65],
    select: [72],
    timevalSelect: [],
    poll: [73],
    plainPoll: [],
    epoll: [22, 441],
    waitChild: [260, 95],
    ambiguous: [22, 441, 98],
    // nanosleep, clock_nanosleep, accept, accept4, connect, recvfrom, recvmsg, recvmmsg
    goesOn: [101, 115, 202, 242, 203, 207, 212, 243],
  },
};

/** What one thread is blocked in, and what it waits on. */
export interface WaitSample {
  /** Syscall number and hex args from /proc/<pid>/syscall; 'running' when not in one; undefined if unreadable. */
  syscall: { nr: number; args: string[] } | 'running' | undefined;
  /** Link targets of the fds the syscall involves (read's fd, or the fds select/poll/epoll watch). */
  fdTargets: Record<number, string>;
  /** For select/poll/epoll: the fds it watches for reading, when they could be read (its memory, the epoll set). */
  watchedFds?: number[];
  /** For select/poll/epoll: the fds it watches for anything else (writing, exceptions), read along with watchedFds. */
  otherWatchedFds?: number[];
  /**
   * For select/poll/epoll: the watched fds only the process itself can wake (an eventfd, a self-pipe, a socketpair it
   * holds both ends of), as gdb and node watch beside their terminal. Such a wait is an event loop.
   */
  ownWakeupFds?: number[];
  /** For select/poll/epoll: the timeout it was called with, in ms; -1 when it waits forever. */
  timeoutMs?: number;
}

export interface ThreadSample {
  tid: number;
  state: string;
  /** The syscall it is blocked in, when it is blocked in one and /proc could say. */
  syscall?: number;
  /** What it waits on, read for threads blocked in a read, select or poll (a REPL reading on a thread of its own). */
  wait?: WaitSample;
}

/** The main thread's wait (the process's own /proc files), with the rest of the process. */
export interface MemberSample extends WaitSample {
  pid: number;
  /** One letter from /proc/<pid>/stat: R running, S sleeping, D disk, Z zombie, T stopped... */
  state: string;
  /** Times scheduled (3rd field of /proc/<pid>/schedstat): changes when the process has run. */
  runCount: number;
  /**
   * For a timed wait: when the process last ran before it (`se.exec_start` of /proc/<pid>/sched, ms on the
   * scheduler's clock), about when the wait began. Absent where the kernel does not show it.
   */
  waitStartedMs?: number;
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

/**
 * An event loop's timer: the loop reads the terminal, but its timeout will wake it without input. Whether that timer
 * is worth waiting for is the policy's call (it keeps time across probes); see docs/input-wait.md.
 */
export interface LoopTimer {
  pid: number;
  /** The timeout the loop's wait was called with, in ms. */
  timeoutMs: number;
  /** The process's run count when it was seen waiting: a new count is a new wait. */
  runCount: number;
  /** About when the wait began, on the scheduler's clock (see MemberSample.waitStartedMs). */
  startedMs?: number;
}

export type InputWaitVerdict =
  | { kind: 'waiting'; readers: MemberSample[]; timer?: LoopTimer }
  | { kind: 'busy'; reason: string }
  | { kind: 'unknown'; reason: string };

const isTerminal = (target: string | undefined, ptsPath: string) => target === ptsPath || target === '/dev/tty';

/**
 * What one wait means: reading the terminal (with the event loop's timer, when it has one), waiting only on its own
 * wake-ups (a loop whose input comes from another thread), reading a pipe, waiting for a child, busy, or unknown.
 */
type WaitKind =
  | { kind: 'tty-read'; timerMs?: number }
  | { kind: 'own-wait'; timerMs?: number }
  | { kind: 'pipe-read' | 'child-wait' | 'busy' | 'unknown' };

function classifyWait(wait: WaitSample, ptsPath: string, table: SyscallTable): WaitKind {
  const { syscall } = wait;
  if (syscall === 'running') return { kind: 'busy' };
  if (syscall === undefined) return { kind: 'unknown' };
  const { nr, args } = syscall;
  if (table.read.includes(nr)) {
    const target = wait.fdTargets[Number.parseInt(args[0] ?? '', 16)];
    if (isTerminal(target, ptsPath)) return { kind: 'tty-read' };
    return { kind: target?.startsWith('pipe:') ? 'pipe-read' : 'busy' };
  }
  if (table.select.includes(nr) || table.poll.includes(nr) || table.epoll.includes(nr)) {
    const fds = wait.watchedFds;
    if (fds === undefined) return { kind: 'unknown' };
    const all = [...fds, ...(wait.otherWatchedFds ?? [])];
    const own = new Set(wait.ownWakeupFds ?? []);
    const terminal = (fd: number) => isTerminal(wait.fdTargets[fd], ptsPath);
    // A timeout can wake it without input, an event loop's or a wait on the terminal alone: vim waiting to tell a
    // lone Esc from the start of a key's sequence redraws when it ends. The policy decides which are worth waiting
    // for; one far off (top's refresh, `read -t 30`) is not.
    const timer = wait.timeoutMs !== undefined && wait.timeoutMs >= 0 ? wait.timeoutMs : undefined;
    const timed = timer === undefined ? {} : { timerMs: timer };
    if (all.length > 0 && all.every((fd) => own.has(fd))) return { kind: 'own-wait', ...timed };
    if (!fds.some(terminal)) return { kind: 'busy' };
    // Watching the terminal and something else (a socket to read, or to write to): it may go on without input,
    // unless the something else is its own wake-up.
    return all.every((fd) => terminal(fd) || own.has(fd)) ? { kind: 'tty-read', ...timed } : { kind: 'unknown' };
  }
  if (table.waitChild.includes(nr)) return { kind: 'child-wait' };
  if (table.ambiguous.includes(nr)) return { kind: 'unknown' };
  return { kind: 'busy' }; // sleeping, connecting, accepting, writing...
}

const reading = (timerMs: number | undefined) =>
  ({ activity: 'tty-read', ...(timerMs === undefined ? {} : { timerMs }) }) as const;

/** What one member of the foreground group is doing, and its event loop's timer when it reads through one. */
function assessMember(
  member: MemberSample,
  ptsPath: string,
  table: SyscallTable,
): { activity: MemberActivity; timerMs?: number } {
  if (member.state === 'Z' || member.state === 'X') return { activity: 'gone' };
  if (member.supervisor) return { activity: 'child-wait' };
  if (member.state === 'R' || member.state === 'D' || member.syscall === 'running') return { activity: 'busy' };
  if (member.state === 'T' || member.state === 't' || member.syscall === undefined) return { activity: 'unknown' };
  // Another thread that computes, sleeps or waits on the network may print without any input. Threads parked on a
  // lock or an event loop (thread pools, runtimes) are the norm and say nothing.
  const goesOn = (t: ThreadSample) =>
    t.state === 'R' || t.state === 'D' || (t.syscall !== undefined && table.goesOn.includes(t.syscall));
  if (member.otherThreads.some(goesOn)) return { activity: 'busy' };
  const main = classifyWait(member, ptsPath, table);
  if (main.kind === 'own-wait') {
    // A loop fed by a thread of its own that reads the terminal (python -m asyncio): reading, with the loop's timer.
    const reader = member.otherThreads.some(
      (t) => t.wait !== undefined && classifyWait(t.wait, ptsPath, table).kind === 'tty-read',
    );
    return reader ? reading(main.timerMs) : { activity: 'busy' };
  }
  if (main.kind === 'tty-read') return reading(main.timerMs);
  return { activity: main.kind };
}

/** What one member of the foreground group is doing. */
export function classifyMember(member: MemberSample, ptsPath: string, table: SyscallTable): MemberActivity {
  return assessMember(member, ptsPath, table).activity;
}

/**
 * Waiting means: every live member of the foreground group is reading the terminal, reading a pipe or waiting
 * for a child, and at least one reads the terminal. When input was just written (`baseline` holds run counts
 * from before the write), a reader must also have run since: otherwise it may still sit in its old read, about
 * to wake up and consume what we wrote. A reader whose event loop has a timer comes with it (the soonest).
 */
export function decideInputWait(
  sample: ForegroundSample,
  ptsPath: string,
  table: SyscallTable,
  baseline?: ReadonlyMap<number, number>,
): InputWaitVerdict {
  const readers: MemberSample[] = [];
  let timer: LoopTimer | undefined;
  let live = 0;
  for (const member of sample.members) {
    const { activity, timerMs } = assessMember(member, ptsPath, table);
    if (activity === 'gone') continue;
    live++;
    if (activity === 'busy') return { kind: 'busy', reason: `pid ${member.pid} is busy` };
    if (activity === 'unknown') return { kind: 'unknown', reason: `pid ${member.pid} waits on something ambiguous` };
    if (activity === 'tty-read') readers.push(member);
    if (timerMs !== undefined && (timer === undefined || timerMs < timer.timeoutMs)) {
      timer = {
        pid: member.pid,
        timeoutMs: timerMs,
        runCount: member.runCount,
        ...(member.waitStartedMs === undefined ? {} : { startedMs: member.waitStartedMs }),
      };
    }
  }
  if (live === 0) return { kind: 'unknown', reason: 'no live process in the foreground group' };
  if (readers.length === 0) return { kind: 'busy', reason: 'nothing reads the terminal' };
  // A run count that could not be read (NaN) is no evidence of having run.
  if (baseline && !readers.some((r) => Number.isFinite(r.runCount) && baseline.get(r.pid) !== r.runCount)) {
    return { kind: 'busy', reason: 'the reader has not run since the input was written' };
  }
  return { kind: 'waiting', readers, ...(timer ? { timer } : {}) };
}
