import type { ReturnPolicy, WatchContext } from '../input-wait/return-policy.js';
import type { Disposable, ExecProcess } from '../spawn/types.js';

/** What the watch needs from the process record around it. */
export interface InputWatchHooks {
  /** performance.now() of the last output byte. */
  lastOutputAt(): number;
  /** Called on new output or exit. */
  onActivity(listener: () => void): Disposable;
  /** The program is blocked reading its terminal; every byte it printed before has reached onData. */
  report(secretPrompt: boolean): void;
}

/**
 * Runs input-wait detection on one tty process for the `process/inputWait` extension: one watch at a time. A watch
 * starts after the spawn (`start`), after a write (`input`, with what `beforeInput` took before the bytes went in),
 * or, once a report was made, on the next output (`poll`). Watching only runs while `enabled` (a connection that
 * asked for the notifications is attached): the /proc probes cost a little CPU per process.
 */
export class InputWatch {
  private enabled = false;
  private stopped = false;
  private current: AbortController | undefined;
  /** The latest report, while still current: no output and no write since. */
  private reported: { secretPrompt: boolean } | undefined;

  constructor(
    private readonly process: ExecProcess,
    private readonly policy: ReturnPolicy,
    private readonly hooks: InputWatchHooks,
  ) {}

  /** The report still current, if any. */
  get latestReport(): { secretPrompt: boolean } | undefined {
    return this.reported;
  }

  /** Starts watching (`start` right after the spawn, `poll` later); a no-op while already enabled. */
  enable(trigger: 'start' | 'poll'): void {
    if (this.enabled || this.stopped) return;
    this.enabled = true;
    this.begin(trigger);
  }

  /** Stops watching until enabled again; the current report is dropped (nobody is told of it). */
  disable(): void {
    this.enabled = false;
    this.reported = undefined;
    this.abort();
  }

  /** For good: the process exited. */
  stop(): void {
    this.stopped = true;
    this.disable();
  }

  /** New output: a report is no longer current; after one, watch again. */
  output(): void {
    this.reported = undefined;
    if (this.enabled && this.current === undefined) this.begin('poll');
  }

  /** Right before non-empty input is written: ends the watch and takes the policy's baseline. */
  beforeWrite(): unknown {
    this.reported = undefined;
    this.abort();
    return this.policy.beforeInput?.(this.process);
  }

  /** After the write's response went out: watch for the program to want more. */
  afterWrite(mark: unknown): void {
    if (this.enabled && !this.stopped) this.begin('input', mark);
  }

  private abort(): void {
    this.current?.abort();
    this.current = undefined;
  }

  private begin(trigger: WatchContext['trigger'], beforeInput?: unknown): void {
    this.abort();
    const controller = new AbortController();
    this.current = controller;
    const context: WatchContext = {
      process: this.process,
      lastOutputAt: () => this.hooks.lastOutputAt(),
      onActivity: (listener) => this.hooks.onActivity(listener),
      signal: controller.signal,
      trigger,
      ...(beforeInput !== undefined ? { beforeInput } : {}),
    };
    this.policy.watch(context).then(
      (found) => {
        if (controller.signal.aborted || this.current !== controller) return;
        this.current = undefined;
        if (found === undefined) return; // the policy cannot tell here: stay quiet until output or input
        this.reported = { secretPrompt: found.secretPrompt === true };
        this.hooks.report(found.secretPrompt === true);
      },
      () => {
        if (this.current === controller) this.current = undefined;
      },
    );
  }
}
