import { decideInputWait, type SyscallTable } from '../process/input-wait.js';
import { runCounts, sampleForeground, syscallTable } from '../process/proc-sample.js';
import type { ExecProcess } from '../process/types.js';
import type { EarlyReturn, ReturnPolicy, WatchContext } from './return-policy.js';

export interface InputWaitOptions {
  /** Quick probes (one per event-loop turn) after the start or new output, before backing off to timers. */
  quickProbeWindowMs?: number;
  /** Longest pause between probes while a program is busy. */
  maxProbeIntervalMs?: number;
}

const DEFAULT_QUICK_PROBE_WINDOW_MS = 3;
const DEFAULT_MAX_PROBE_INTERVAL_MS = 25;

/**
 * Returns once the terminal's foreground process is blocked reading the terminal and everything it printed
 * before has been delivered. Reads the kernel's view (/proc), never prompt text. Where /proc cannot say
 * (not Linux, an event loop, a stopped job), it stays out of the way and the deadline rule answers.
 */
export class InputWaitPolicy implements ReturnPolicy {
  private readonly table: SyscallTable | undefined;
  private readonly quickWindowMs: number;
  private readonly maxIntervalMs: number;

  constructor(options: InputWaitOptions = {}, table: SyscallTable | undefined = syscallTable) {
    this.table = table;
    this.quickWindowMs = options.quickProbeWindowMs ?? DEFAULT_QUICK_PROBE_WINDOW_MS;
    this.maxIntervalMs = options.maxProbeIntervalMs ?? DEFAULT_MAX_PROBE_INTERVAL_MS;
  }

  /** True where detection can work at all. */
  get supported(): boolean {
    return this.table !== undefined;
  }

  beforeInput(process: ExecProcess): unknown {
    if (!this.table || !process.terminal) return undefined;
    return runCounts(sampleForeground(process.pid, this.table));
  }

  async watch(context: WatchContext): Promise<EarlyReturn | undefined> {
    const { process, signal } = context;
    const table = this.table;
    const terminal = process.terminal;
    if (!table || !terminal) return undefined;
    const baseline = context.beforeInput instanceof Map ? (context.beforeInput as Map<number, number>) : undefined;
    const started = performance.now();
    let interval = 1;
    while (!signal.aborted) {
      const sample = sampleForeground(process.pid, table);
      const verdict = sample && decideInputWait(sample, terminal.path, table, baseline);
      if (verdict?.kind === 'waiting') {
        // Blocked reading does not mean its last output has reached us: the pty forwards it through a kernel
        // worker. After the drain barrier it must still be waiting, and its readers must not have run since.
        const runsBefore = new Map(verdict.readers.map((r) => [r.pid, r.runCount]));
        await terminal.flushOutput();
        if (signal.aborted) return undefined;
        const again = sampleForeground(process.pid, table);
        const confirm = again && decideInputWait(again, terminal.path, table);
        if (confirm?.kind === 'waiting' && confirm.readers.every((r) => runsBefore.get(r.pid) === r.runCount)) {
          const modes = terminal.localModes();
          return { state: 'waiting_for_input', ...(modes?.canonical && !modes.echo ? { secretPrompt: true } : {}) };
        }
        continue;
      }
      // Probe every event-loop turn just after the start or fresh output (answers come fast), then back off.
      const quiet = performance.now() - Math.max(started, context.lastOutputAt());
      interval = quiet < this.quickWindowMs ? 0 : Math.min(Math.max(1, interval * 2), this.maxIntervalMs);
      await pause(interval, signal);
    }
    return undefined;
  }
}

/** setImmediate for 0 (one event-loop turn, so output keeps flowing), else a timer; ends early on abort. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      if (ms === 0) clearImmediate(handle as NodeJS.Immediate);
      else clearTimeout(handle as NodeJS.Timeout);
      resolve();
    };
    const handle = ms === 0 ? setImmediate(done) : setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
