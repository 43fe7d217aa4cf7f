import { z } from 'zod';
import type { SandboxBackend, SandboxPolicy } from '../sandbox/policy.js';
import { NETWORK_MODES, SANDBOX_BACKENDS, SANDBOX_MODES } from '../sandbox/policy.js';
import type { EnvPolicy } from '../spawn/env.js';
import type { Executor } from '../spawn/types.js';
import { describeIssue, describeValue, expected, invalidArgument } from './errors.js';
import { envSettings, isExecutor } from './settings.js';

// What exec() takes, checked at run time as the manager checks its settings: callers coming from execa or
// child_process type `timeout` or `signal` by habit, and an option silently ignored is a limit silently not applied.

export interface ExecOptions {
  /** An argv (run as is, looked up in PATH) or a shell command line (run with `shell -c`, or `-lc` with `login`). */
  command: string | readonly string[];
  /** Default: process.cwd(). */
  cwd?: string;
  /** Which variables the program inherits; the session variables of every exec session are set too. */
  env?: EnvPolicy;
  /** Killed with its whole process tree after this long: the outcome says `timedOut`, exit code 124. Default 10000. */
  timeoutMs?: number;
  /**
   * Aborting it kills the whole process tree, as a timeout does, and the call rejects with a CANCELLED error once
   * the tree is gone (its `cause` is the signal's reason). Already aborted: nothing is started.
   */
  signal?: AbortSignal;
  /** For a command line: default $SHELL, else /bin/bash. */
  shell?: string;
  /** For a command line: run the shell as a login shell. Default false. */
  login?: boolean;
  /** Run inside this sandbox (bubblewrap or Landlock). Default: none. */
  sandbox?: SandboxPolicy;
  /** The sandbox's backend on this machine (default: chosen on first use). */
  sandboxBackend?: SandboxBackend;
  /**
   * Where to run it (default: this machine). `input` needs one whose processes can close stdin (this machine's).
   */
  executor?: Executor;
  /** Written to the program's stdin, which is then closed. Default: nothing (stdin ends at once). */
  input?: string;
  /**
   * Called with stdout and stderr text as it arrives, in arrival order (each stream decoded on its own, so no
   * character is split), until the call answers; all of it is in the outcome too. A listener that throws changes
   * nothing for the call.
   */
  onOutput?: (text: string) => void;
}

const sandboxPolicy = z.strictObject({
  mode: z.enum(SANDBOX_MODES, expected(SANDBOX_MODES.join(', '))),
  network: z.enum(NETWORK_MODES, expected(NETWORK_MODES.join(' or '))),
  allowedDomains: z.array(z.string(expected('a domain')), expected('an array of domains')),
  workspace: z.string(expected('a directory path')),
  writableRoots: z.array(z.string(expected('a directory path')), expected('an array of directory paths')),
  backend: z.enum(SANDBOX_BACKENDS, expected(SANDBOX_BACKENDS.join(' or '))).optional(),
});

const text = (what: string) => z.string(expected(what));

// Every option has its check (and nothing else is one): the compiler holds the two lists together.
const execOptionsShape = {
  command: z.union([text('a command line'), z.array(text('a string'))], {
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : `expected a command line (a string) or an argv (an array of strings), got ${describeValue(issue.input)}`,
  }),
  cwd: text('a directory path (a string)').optional(),
  env: envSettings.optional(),
  timeoutMs: z
    .number(expected('a finite number of milliseconds'))
    .positive(expected('a positive number of milliseconds'))
    .optional(),
  signal: z
    .custom<AbortSignal>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as AbortSignal).aborted === 'boolean' &&
        typeof (value as AbortSignal).addEventListener === 'function',
      expected('an AbortSignal'),
    )
    .optional(),
  shell: text('a shell binary').min(1, expected('a shell binary')).optional(),
  login: z.boolean(expected('true or false')).optional(),
  sandbox: sandboxPolicy.optional(),
  sandboxBackend: z.enum(SANDBOX_BACKENDS, expected(SANDBOX_BACKENDS.join(' or '))).optional(),
  executor: z.custom<Executor>(isExecutor, expected('an Executor')).optional(),
  input: text('a string').optional(),
  onOutput: z.custom<(text: string) => void>((value) => typeof value === 'function', expected('a function')).optional(),
} satisfies Record<keyof ExecOptions, z.ZodType>;

const execOptionsSchema = z.strictObject(execOptionsShape);
const OPTION_NAMES = Object.keys(execOptionsShape);

/**
 * `options` checked: an INVALID_ARGUMENT error names every wrong option, what it expected and what came
 * (`` `timeoutMs`: expected a finite number of milliseconds, got "1000" (string) ``), and every unknown one.
 */
export function parseExecOptions(options: unknown): ExecOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw invalidArgument(`Invalid exec options: expected an object, got ${describeValue(options)}`);
  }
  const result = execOptionsSchema.safeParse(options, { reportInput: true });
  if (result.success) return result.data;
  const { issues } = result.error;
  const unknown = issues.some((issue) => issue.code === 'unrecognized_keys');
  throw invalidArgument(
    `Invalid exec options: ${issues.map((issue) => describeIssue(issue, 'option')).join('; ')}` +
      (unknown ? ` (exec takes ${OPTION_NAMES.map((name) => `\`${name}\``).join(', ')})` : ''),
  );
}
