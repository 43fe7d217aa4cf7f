import type { Disposable, ExecProcess } from '../spawn/types.js';

/** What a policy says when it ends a wait early. */
export interface EarlyReturn {
  state: 'waiting_for_input';
  secretPrompt?: boolean;
}

export interface WatchContext {
  process: ExecProcess;
  /** performance.now() of the last output byte seen on the session. */
  lastOutputAt(): number;
  /** Called on new output or exit. */
  onActivity(listener: () => void): Disposable;
  /** Aborted when the wait is over for another reason; the policy must stop its work then. */
  signal: AbortSignal;
  /** What `beforeInput` returned, when this call wrote input. */
  beforeInput?: unknown;
  /** What this call did: started the program, wrote input to it, or only polls it. */
  trigger: 'start' | 'input' | 'poll';
}

/**
 * The collect loop's "should I return now?" seam. `watch` resolves with an EarlyReturn to end the wait, or with
 * undefined to let the deadline (or the exit) decide.
 */
export interface ReturnPolicy {
  /** Called right before a call writes input, so the policy can tell later whether the program has seen it. */
  beforeInput?(process: ExecProcess): unknown;
  watch(context: WatchContext): Promise<EarlyReturn | undefined>;
}

/** The compat rule: a live process answers at its deadline, never before. */
export const deadlinePolicy: ReturnPolicy = {
  watch: async () => undefined,
};
