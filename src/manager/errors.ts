export type UnifiedExecErrorCode =
  | 'UNKNOWN_SESSION'
  | 'STDIN_CLOSED'
  | 'SPAWN_FAILED'
  | 'INVALID_ARGUMENT'
  | 'SHUT_DOWN'
  | 'LIMIT_EXCEEDED'
  | 'NOT_APPROVED'
  | 'PATCH_REJECTED'
  | 'CANCELLED';

/** The one error type of the library: a machine-readable `code` and a message a model can act on. */
export class UnifiedExecError extends Error {
  override readonly name = 'UnifiedExecError';

  constructor(
    readonly code: UnifiedExecErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const unknownSession = (id: unknown) =>
  new UnifiedExecError('UNKNOWN_SESSION', `Unknown process id ${String(id)}`);

export const stdinClosed = () =>
  new UnifiedExecError(
    'STDIN_CLOSED',
    'stdin is closed for this session; rerun exec_command with tty=true to keep stdin open',
  );

export const spawnFailed = (reason: string, cause?: unknown) =>
  new UnifiedExecError('SPAWN_FAILED', `Failed to create unified exec process: ${reason}`, { cause });

/** An executor's failure to start a command as a SPAWN_FAILED error (one of ours passes through as it is). */
export const asSpawnFailed = (err: unknown) =>
  err instanceof UnifiedExecError ? err : spawnFailed((err as Error).message, err);

export const invalidArgument = (message: string) => new UnifiedExecError('INVALID_ARGUMENT', message);

/** The approval policy refused the command, the person said no, or nobody could be asked. */
export const notApproved = (message: string) => new UnifiedExecError('NOT_APPROVED', message);

/**
 * A patch typed as a command was not applied, and nothing of it was written: it does not parse, a file it changes is
 * missing, or a chunk does not fit. Worded as Codex words it; a tool reply shows the message without a prefix.
 */
export const patchRejected = (reason: string) =>
  new UnifiedExecError('PATCH_REJECTED', `apply_patch verification failed: ${reason}`);

export const shutDown = () =>
  new UnifiedExecError('SHUT_DOWN', 'The exec session manager has been shut down; create a new one');

/** The caller gave up on the call (its `signal` aborted): the output it would have had waits for the next call. */
export const cancelled = () =>
  new UnifiedExecError(
    'CANCELLED',
    'The call was cancelled; the output it had not delivered is kept for the next call on this session',
  );

/** exec()'s `signal` aborted: the command's whole tree was ended, and nothing of its outcome is answered. */
export const aborted = (reason: unknown) =>
  new UnifiedExecError(
    'CANCELLED',
    'exec was aborted by its signal; the command and every process it started were killed',
    { cause: reason },
  );

export const limitExceeded = (message: string) => new UnifiedExecError('LIMIT_EXCEEDED', message);

/** `"abc" (string)`, `NaN (number)`, `{"a":1} (object)`, `undefined`: what a validation message says came. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  const kind = Array.isArray(value) ? 'array' : typeof value;
  if (typeof value === 'string')
    return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (${kind})`;
  let shown = String(value);
  if (typeof value === 'object') {
    try {
      shown = JSON.stringify(value) ?? shown;
    } catch {
      // a cycle: String() it is
    }
  }
  return `${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown} (${kind})`;
}

/** One zod issue as a clause of a message: `` `yield_time_ms`: expected a finite number, got "x" (string)``. */
export function describeIssue(
  issue: {
    code: string;
    path: readonly PropertyKey[];
    message: string;
    keys?: readonly string[];
    expected?: string;
    input?: unknown;
  },
  /** What a key names: `field` for tool arguments, `setting` for manager settings. */
  noun = 'field',
): string {
  const field = issue.path.map(String).join('.');
  let text = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys ?? [];
    text = `unknown ${noun}${keys.length === 1 ? '' : 's'} ${keys.map((k) => `\`${k}\``).join(', ')}`;
  } else if (issue.code === 'invalid_type' && text.startsWith('Invalid input')) {
    // zod's own wording, where no schema said better: put it the house way.
    text = `expected ${issue.expected === 'object' ? 'an object' : (issue.expected ?? 'another type')}, got ${describeValue(issue.input)}`;
  }
  return field === '' ? text : `\`${field}\`: ${text}`;
}

/** A zod error callback: ``expected a string, got 42 (number)``, or ``is required`` when the field is missing. */
export const expected = (what: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? 'is required' : `expected ${what}, got ${describeValue(issue.input)}`,
});
