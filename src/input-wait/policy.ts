import { decideInputWait, type ForegroundSample, type LoopTimer, type SyscallTable } from './decide.js';
import { runCounts, sampleForeground, syscallTable, unchangedSince } from './sampler.js';
import { ProbeBudget } from './probe-budget.js';
import type { ExecProcess, TerminalHandle } from '../spawn/types.js';
import type { EarlyReturn, ReturnPolicy, WatchContext } from './return-policy.js';

export interface InputWaitOptions {
  /** Probes on consecutive event-loop turns when output starts after a quiet spell. Default 6. */
  quickProbes?: number;
  /** Longest pause between probes while a program is busy. */
  maxProbeIntervalMs?: number;
  /** The probes this policy may spend; default: the one budget every session of the process shares. */
  probeBudget?: ProbeBudget;
}

const DEFAULT_MAX_PROBE_INTERVAL_MS = 25;
/** Probes on consecutive event-loop turns after output starts; a probe costs ~0.1 ms of /proc reads. */
const QUICK_PROBES = 6;
/** How long after a start or an input the first look comes, unless output comes first. */
const FIRST_LOOK_MS = { start: 4, input: 1 } as const;
/** Output this recent means it is still flowing. */
const FLOWING_OUTPUT_MS = 1;
/** The longest pause in a flood that is still taken for part of the flood. */
const MAX_FLOW_QUIET_MS = 16;

/** An event loop's timer due further off than this is not waited for (see loopTimerAllows). */
export const FAR_TIMER_MS = 2000;
/** Timing slack when telling a tick: our probes see a wait up to a few tens of ms after it began. */
const TICK_SLACK_MS = 50;
/**
 * The shortest timer that can be told for a tick: within the slack, any short wait looks as if it came due and any
 * two look alike (a loop's waits at start-up, the last moment of a long timer woken early), and a tick learned from
 * them would let such a moment pass for one.
 */
const MIN_TICK_MS = 2 * TICK_SLACK_MS;

/** What the policy remembers of one session's event loops, from call to call. */
export interface LoopTimers {
  /** The timed wait each process was last seen in, and when we first saw it. */
  waits: Map<number, { runCount: number; timeoutMs: number; seenAt: number; startedMs?: number }>;
  /** Per process: the longest periodic timer seen firing with nothing printed (a tick), in ms. */
  tickMs: Map<number, number>;
  /**
   * Ticks not yet confirmed, per process: when the quiet spell they were learned from began, and the tick before.
   * "Nothing printed" is judged by the output that has reached us, and a busy machine's pty delivers it late.
   */
  unconfirmed: Map<number, { quietSince: number; before?: number }>;
}

/**
 * Whether an event loop that reads the terminal may be reported waiting despite its timer, learning its quiet ticks
 * as it goes. A timer due within FAR_TIMER_MS may print when it fires (a setTimeout, an asyncio.sleep), so we wait
 * for it, unless it is no longer than a tick of this loop: a timer seen firing with nothing printed and re-armed at
 * the same length (ipython's 0.5 s terminal-size poll). A timer further off is the runtime's housekeeping (V8's
 * memory reducer, 8 s) or a program's own schedule, like top's refresh: what it prints, the next call gets.
 * `now` and `lastOutputAt` are performance.now() times. Exported for tests.
 */
export function loopTimerAllows(loop: LoopTimers, timer: LoopTimer, now: number, lastOutputAt: number): boolean {
  const previous = loop.waits.get(timer.pid);
  let seen = previous;
  // A wait is known by its run count and its timeout together: the syscall and the run count are read one after the
  // other, so a loop that wakes in between shows its next wait with the count already seen.
  if (previous === undefined || previous.runCount !== timer.runCount || previous.timeoutMs !== timer.timeoutMs) {
    // A new wait. The one before was a tick if its timer had come due, nothing was printed since, and the loop
    // re-armed a timer of the same length. Come due: it was seen long enough ago, and, where the kernel says when
    // each wait began, the new one began when the old one's time was up (a loop woken early for something else, and
    // not looked at again until late, re-arms the rest of the same timer: that is no tick).
    const ranItsCourse = (earlier: { startedMs?: number; timeoutMs: number }) =>
      earlier.startedMs === undefined ||
      timer.startedMs === undefined ||
      timer.startedMs - earlier.startedMs >= earlier.timeoutMs - TICK_SLACK_MS;
    if (
      previous !== undefined &&
      previous.timeoutMs >= MIN_TICK_MS &&
      previous.timeoutMs < FAR_TIMER_MS &&
      now - previous.seenAt >= previous.timeoutMs - TICK_SLACK_MS &&
      ranItsCourse(previous) &&
      lastOutputAt < previous.seenAt &&
      Math.abs(timer.timeoutMs - previous.timeoutMs) <= Math.max(TICK_SLACK_MS, previous.timeoutMs * 0.05)
    ) {
      const before = loop.tickMs.get(timer.pid);
      if (before === undefined || previous.timeoutMs > before) {
        const pending = loop.unconfirmed.get(timer.pid);
        loop.unconfirmed.set(
          timer.pid,
          pending ?? { quietSince: previous.seenAt, ...(before === undefined ? {} : { before }) },
        );
        loop.tickMs.set(timer.pid, previous.timeoutMs);
      }
    }
    seen = {
      runCount: timer.runCount,
      timeoutMs: timer.timeoutMs,
      seenAt: now,
      ...(timer.startedMs === undefined ? {} : { startedMs: timer.startedMs }),
    };
    loop.waits.set(timer.pid, seen);
  }
  const dueIn = seen!.timeoutMs - (now - seen!.seenAt);
  return dueIn >= FAR_TIMER_MS || timer.timeoutMs <= (loop.tickMs.get(timer.pid) ?? -1);
}

/**
 * Settles the ticks learned since the last drain barrier, once everything printed before it has reached us: a tick
 * whose quiet spell turns out to have had output (it was still in the pty) was a timer that printed, and is
 * forgotten. True when every one stands. `lastOutputAt` is a performance.now() time. Exported for tests.
 */
export function confirmTicks(loop: LoopTimers, lastOutputAt: number): boolean {
  let stand = true;
  for (const [pid, { quietSince, before }] of loop.unconfirmed) {
    if (lastOutputAt < quietSince) continue;
    stand = false;
    if (before === undefined) loop.tickMs.delete(pid);
    else loop.tickMs.set(pid, before);
  }
  loop.unconfirmed.clear();
  return stand;
}

/**
 * Returns once the terminal's foreground process is blocked reading the terminal and everything it printed
 * before has been delivered. Reads the kernel's view (/proc), never prompt text. Where /proc cannot say
 * (not Linux, an event loop, a stopped job), it stays out of the way and the deadline rule answers.
 */
export class InputWaitPolicy implements ReturnPolicy {
  private readonly table: SyscallTable | undefined;
  private readonly quickProbes: number;
  private readonly maxIntervalMs: number;
  private readonly budget: ProbeBudget;
  private readonly loops = new WeakMap<ExecProcess, LoopTimers>();
  /** Per session: the foreground group as last found waiting for input (see beforeInput). */
  private readonly lastWaiting = new WeakMap<ExecProcess, ForegroundSample>();

  constructor(options: InputWaitOptions = {}, table: SyscallTable | undefined = syscallTable) {
    this.table = table;
    this.quickProbes = options.quickProbes ?? QUICK_PROBES;
    this.maxIntervalMs = options.maxProbeIntervalMs ?? DEFAULT_MAX_PROBE_INTERVAL_MS;
    this.budget = options.probeBudget ?? ProbeBudget.shared();
  }

  /** True where detection can work at all. */
  get supported(): boolean {
    return this.table !== undefined;
  }

  beforeInput(process: ExecProcess): unknown {
    if (process.reportedInputWait) return process.reportedInputWait.mark();
    if (!this.table || !process.terminal || process.pid === undefined) return undefined;
    // Where nothing of the group last seen waiting has run since, that group and its counts are the baseline: two
    // small reads instead of a sample (the usual case: input typed at the prompt the last call answered at).
    const last = this.lastWaiting.get(process);
    if (last && singleThreaded(last) && unchangedSince(process.pid, last)) return runCounts(last);
    return runCounts(sampleForeground(process.pid, this.table, process.terminal));
  }

  async watch(context: WatchContext): Promise<EarlyReturn | undefined> {
    const { process, signal } = context;
    const reported = process.reportedInputWait;
    if (reported) {
      const found = await reported.watch({ signal, trigger: context.trigger, mark: context.beforeInput });
      return found && { state: 'waiting_for_input', ...(found.secretPrompt ? { secretPrompt: true } : {}) };
    }
    const table = this.table;
    const terminal = process.terminal;
    const pid = process.pid;
    if (!table || !terminal || pid === undefined) return undefined;
    const baseline = context.beforeInput instanceof Map ? (context.beforeInput as Map<number, number>) : undefined;
    let interval = 1;
    let quickProbesLeft = 0;
    let quietNeededMs = FLOWING_OUTPUT_MS;
    let sawFlow = false;
    let lookedAgainOnOutput = false;
    // A program just started or just sent input is busy for a moment: look first when it answers (output) or after
    // a short while, not at once. A poll may find it waiting already, so it looks at once.
    if (context.trigger !== 'poll' && (await pause(FIRST_LOOK_MS[context.trigger], signal, context.onActivity))) {
      quickProbesLeft = this.quickProbes;
    }
    while (!signal.aborted) {
      // Every session shares one probe budget: when this event-loop turn's probes are spent, wait for a later turn.
      const granted = this.budget.take(signal);
      if (granted !== true && !(await granted)) break;
      const probedAt = performance.now();
      const sample = sampleForeground(pid, table, terminal);
      const verdict = sample && decideInputWait(sample, terminal.path, table, baseline);
      const waiting =
        verdict?.kind === 'waiting' &&
        (verdict.timer === undefined ||
          loopTimerAllows(this.loopsOf(process), verdict.timer, probedAt, context.lastOutputAt()));
      if (sample && waiting) {
        // Blocked reading does not mean its last output has reached us: the pty forwards it through a kernel
        // worker. After the drain barrier it must still be waiting, and no process of the group may have run since:
        // a pipe reader sampled just before data reached its pipe (`cat | tr`) runs, prints and reads again between
        // the two looks, and its output can come after the barrier.
        // A group of one thread each drains at once; a group with more threads (event loops, REPLs on a thread of
        // their own) by the marker's round trip through the terminal and the event loop, as it always did: the
        // drain at once was seen to leave `python -m asyncio` unanswered at its start in two of three runs of the
        // whole suite, under load, not yet explained.
        await terminal.flushOutput(singleThreaded(sample) ? {} : { byMarker: true });
        if (signal.aborted) return undefined;
        // A tick just learned may have been a timer that printed (vim redrawing after an Esc), its output still on
        // the way: then the timer it let pass may print too (vim's wait for terminal replies before it exits).
        // A session that never showed an event loop's timer has no ticks to confirm, and no record of them is made.
        const loop = this.loops.get(process);
        if (loop && !confirmTicks(loop, context.lastOutputAt())) continue;
        if (stillWaiting(pid, table, terminal, sample)) {
          this.lastWaiting.set(process, sample);
          const modes = terminal.localModes();
          return { state: 'waiting_for_input', ...(modes?.canonical && !modes.echo ? { secretPrompt: true } : {}) };
        }
        continue;
      }
      // Output that starts after a quiet spell is usually an answer, and a prompt its last piece: probe on the
      // next few event-loop turns.
      if (quickProbesLeft > 0) {
        quickProbesLeft--;
        await pause(0, signal);
        continue;
      }
      // Spent on a program still at work: its answer and its prompt can come apart by less than the pause the flow
      // check waits for (bash held off a CPU for 0.3 ms between `echo`'s output and its prompt, in 2-3 % of round
      // trips on a 2-core VM, was answered 1 ms after its prompt). So the next output, or 1 ms, brings another look
      // and quick probes, once a call: a flood costs them once.
      if (!lookedAgainOnOutput) {
        lookedAgainOnOutput = true;
        if (await pause(1, signal, context.onActivity)) quickProbesLeft = this.quickProbes;
        continue;
      }
      // While output keeps flowing (a flood) nothing waits for input: don't spend reads of /proc on it. Each time
      // a pause in the flow turned out to be just a pause, ask for a longer one (a busy machine stutters).
      await quietFor(quietNeededMs, signal, () => context.lastOutputAt());
      if (context.lastOutputAt() > probedAt) {
        interval = 1;
        if (sawFlow) quietNeededMs = Math.min(quietNeededMs * 2, MAX_FLOW_QUIET_MS);
        sawFlow = true;
        continue; // output came and paused since that probe: look again now
      }
      // Quiet: back off, but wake at once for new output.
      if (await pause(interval, signal, context.onActivity)) {
        interval = 1;
        quickProbesLeft = this.quickProbes;
      } else {
        interval = Math.min(interval * 2, this.maxIntervalMs);
      }
    }
    return undefined;
  }

  private loopsOf(process: ExecProcess): LoopTimers {
    let loop = this.loops.get(process);
    if (!loop) {
      loop = { waits: new Map(), tickMs: new Map(), unconfirmed: new Map() };
      this.loops.set(process, loop);
    }
    return loop;
  }
}

/** Whether every process of the group has one thread: then its run counts tell whether any of it has run. */
const singleThreaded = (sample: ForegroundSample) => sample.members.every((m) => m.otherThreads.length === 0);

/**
 * After the drain barrier: whether the group `sample` saw waiting still waits, none of it having run since. Where
 * every member has one thread, their run counts say it (unchangedSince: a process that has not run is where it was);
 * another thread may run and print while its process's main thread sleeps on, so such a group is sampled again.
 */
function stillWaiting(pid: number, table: SyscallTable, terminal: TerminalHandle, sample: ForegroundSample): boolean {
  if (singleThreaded(sample)) return unchangedSince(pid, sample);
  const runsBefore = runCounts(sample);
  const again = sampleForeground(pid, table, terminal);
  const confirm = again && decideInputWait(again, terminal.path, table);
  return (
    again !== undefined &&
    confirm?.kind === 'waiting' &&
    again.members.every((m) => runsBefore.get(m.pid) === m.runCount)
  );
}

/**
 * Resolves once no output has come for `quietMs`, or on abort. One promise and one timer for the whole flow, the
 * timer re-armed while output keeps coming: a flood's wait makes no object per wake (a pause per millisecond made a
 * promise, a timer and an abort listener each, about 1 MiB of garbage per 50 MB flooded).
 */
export function quietFor(quietMs: number, signal: AbortSignal, lastOutputAt: () => number): Promise<void> {
  if (signal.aborted || performance.now() - lastOutputAt() >= quietMs) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      if (performance.now() - lastOutputAt() >= quietMs) done();
      else timer.refresh();
    }, quietMs);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * setImmediate for 0 (one event-loop turn, so output keeps flowing), else a timer. Ends early on abort or on
 * activity (output); resolves true when activity ended it.
 */
function pause(ms: number, signal: AbortSignal, onActivity?: WatchContext['onActivity']): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (active: boolean) => {
      signal.removeEventListener('abort', aborted);
      activity?.dispose();
      if (ms === 0) clearImmediate(handle as NodeJS.Immediate);
      else clearTimeout(handle as NodeJS.Timeout);
      resolve(active);
    };
    const aborted = () => done(false);
    const handle = ms === 0 ? setImmediate(() => done(false)) : setTimeout(() => done(false), ms);
    const activity = onActivity?.(() => done(true));
    signal.addEventListener('abort', aborted, { once: true });
  });
}
