/**
 * Input-wait probes (reads of /proc, 0.1–0.3 ms each) granted per event-loop turn across every session. A session
 * probes at most once a turn (between probes it waits for a timer, an output event or the next turn), so a lone
 * session never waits; a thousand starting or flooding sessions take turns, 4 probes a turn (≤ ~1 ms of /proc
 * reads between two looks at I/O), instead of each probing on every turn.
 */
const PROBES_PER_TURN = 4;
/**
 * Where the process's shared budget is kept: on globalThis, so that two copies of this module in one process (the
 * library's bundle and tsc's modules, or two installs of the package) still share one budget.
 */
const SHARED_KEY = Symbol.for('unified-exec.probe-budget');

interface Waiter {
  grant: (granted: boolean) => void;
}

/**
 * One budget of input-wait probes for the whole process, shared by every session: at most `perTurn` probes per
 * event-loop turn. Within it a probe goes ahead at once; over it, probes wait for the next turns, first come first
 * served. It holds one immediate while probes were granted or wait, and nothing when none do.
 */
export class ProbeBudget {
  private grantedThisTurn = 0;
  private readonly waiters: Waiter[] = [];
  private turnEnd: NodeJS.Immediate | undefined;
  /** Probes granted, and of those how many had to wait for a later turn (diagnostics and tests). */
  readonly counts = { granted: 0, waited: 0 };

  constructor(readonly perTurn = PROBES_PER_TURN) {}

  /** The budget every InputWaitPolicy of this process shares unless given its own. */
  static shared(): ProbeBudget {
    const holder = globalThis as { [SHARED_KEY]?: ProbeBudget };
    holder[SHARED_KEY] ??= new ProbeBudget();
    return holder[SHARED_KEY];
  }

  /**
   * One probe: `true` at once when this turn has one left and nobody waits before us; otherwise a promise that
   * resolves true in a later turn, or false when `signal` aborts first (the probe is then not taken).
   */
  take(signal: AbortSignal): true | Promise<boolean> {
    if (this.waiters.length === 0 && this.grantedThisTurn < this.perTurn) {
      this.grant();
      return true;
    }
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant: (granted) => {
          signal.removeEventListener('abort', aborted);
          resolve(granted);
        },
      };
      const aborted = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        waiter.grant(false);
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.waiters.push(waiter);
      this.endTurnSoon();
    });
  }

  /** Probes waiting for a later turn now. */
  get waiting(): number {
    return this.waiters.length;
  }

  private grant(): void {
    this.grantedThisTurn++;
    this.counts.granted++;
    this.endTurnSoon();
  }

  /** The turn ends at the next check phase (setImmediate): the count starts over and waiters go first. */
  private endTurnSoon(): void {
    this.turnEnd ??= setImmediate(() => {
      this.turnEnd = undefined;
      this.grantedThisTurn = 0;
      while (this.grantedThisTurn < this.perTurn && this.waiters.length > 0) {
        this.counts.waited++;
        this.grant();
        this.waiters.shift()!.grant(true);
      }
    });
  }
}
