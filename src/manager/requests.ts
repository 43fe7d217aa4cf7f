import { z } from 'zod';
import { BYTES_PER_TOKEN } from '../buffer/truncate.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import {
  DEFAULT_EXEC_TIMEOUT_MS,
  DEFAULT_EXEC_YIELD_TIME_MS,
  DEFAULT_MAX_BACKGROUND_POLL_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_WRITE_YIELD_TIME_MS,
  MAX_TERMINAL_SIDE,
  MAX_TOOL_OUTPUT_TOKENS,
  MAX_YIELD_TIME_MS,
  MIN_EMPTY_POLL_YIELD_MS,
  MIN_YIELD_TIME_MS,
} from './constants.js';
import { describeIssue, describeValue, expected, invalidArgument } from './errors.js';
import type { ResolvedSettings } from './settings.js';
import { longestPollMs } from './timing.js';

// The parameters of each tool, once. Wire names are snake_case, as models trained on the Codex contract type them;
// the library takes the same fields in camelCase, `cmd` and `workdir` under the names `command` and `cwd`
// (`libraryKeys`). The MCP inputSchema, the OpenAI / Anthropic /
// AI SDK exports, the library's validation and the README's tool table all come from these objects. A number in a
// description is the constant's, or the setting's in force (see ToolTextSettings), never typed in again.

/** The settings a tool's text quotes: texts built from the settings in force never tell the model a wrong limit. */
export type ToolTextSettings = Pick<ResolvedSettings, 'maxBackgroundPollMs'>;
export const DEFAULT_TOOL_TEXT_SETTINGS: ToolTextSettings = Object.freeze({
  maxBackgroundPollMs: DEFAULT_MAX_BACKGROUND_POLL_MS,
});

/** `an empty string`, or `only white space` for a string of spaces and newlines. */
const blank = (value: unknown) => (value === '' ? 'an empty string' : 'only white space');

/** Milliseconds or tokens: a finite number, zero or more; fractions round down. */
const count = (fallback: number) =>
  z
    .number(expected('a finite number'))
    .nonnegative(expected('zero or more'))
    .default(fallback)
    .transform((value) => Math.floor(value));

const maxOutputTokens = count(DEFAULT_MAX_OUTPUT_TOKENS).describe(
  `Largest output to return, in tokens of about ${BYTES_PER_TOKEN} bytes each (at most ${MAX_TOOL_OUTPUT_TOKENS} through the tools, as Codex clamps it). Longer output keeps its beginning and end and reports how much of the middle was cut.`,
);

/** A session id, advertised as an integer; models sometimes quote it, so a string of digits is taken too. */
const sessionId = (description: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value),
      z
        .number(expected('a positive integer'))
        .int(expected('a positive integer'))
        .positive(expected('a positive integer')),
    )
    .describe(description);

/** A terminal's width or height, in cells. */
const terminalSide = (description: string) =>
  z
    .number(expected(`a whole number from 1 to ${MAX_TERMINAL_SIDE}`))
    .int(expected(`a whole number from 1 to ${MAX_TERMINAL_SIDE}`))
    .min(1, expected(`a whole number from 1 to ${MAX_TERMINAL_SIDE}`))
    .max(MAX_TERMINAL_SIDE, expected(`a whole number from 1 to ${MAX_TERMINAL_SIDE}`))
    .optional()
    .describe(description);

/** Shared by exec_command and write_stdin: whether the reply shows the terminal's screen. */
const screen = z
  .boolean(expected('true or false'))
  .optional()
  .describe(
    'tty only. Leave it out: the reply shows the rendered screen (rows of text and the cursor) while a full-screen program (vim, less, top) is in the alternate screen, or when the output since the last reply moved the cursor to rows and columns (vim under TERM=dumb draws that way), and Output leaves out what such a program drew. true: show the screen in every reply. false: never; Output is the raw bytes, escape sequences and all.',
  );

/** Shared by exec_command and shell: the model may ask to leave the sandbox, and say why. */
const sandboxPermissions = z
  .enum(['use_default', 'require_escalated'], expected('"use_default" or "require_escalated"'))
  .default('use_default')
  .describe(
    'use_default: run under the sandbox the server is configured with. require_escalated: ask to run this one command outside the sandbox; a person must approve it first, so give a justification.',
  );

const justification = z
  .string(expected('a string'))
  .optional()
  .describe(
    'Only with require_escalated: one sentence telling the person asked for approval why the command needs to run outside the sandbox.',
  );

/** Which of the server's executors runs the command; an empty string counts as left out. */
const executor = z
  .string(expected('a string'))
  .optional()
  .transform((name) => (name === '' ? undefined : name))
  .describe(
    'Where to run the command, for a server that offers more than one place (another machine, a container): the name of one of them, as list_sessions shows. Leave it out for the default.',
  );

/** The directory a command runs in; an empty string counts as left out. */
const workdir = z
  .string(expected('a string'))
  .optional()
  .transform((dir) => (dir === '' ? undefined : dir))
  .describe(
    "Directory to run the command in. A relative path is taken from the server's working directory; leave it out to use that directory.",
  );

export const execCommandParams = z.object({
  cmd: z
    .string(expected('a string'))
    // /\S/ stops at the first non-blank character; trim() would read a heredoc of 4 MiB of blank lines to its end.
    .refine((cmd) => /\S/.test(cmd), { error: (issue) => `expected a command line, got ${blank(issue.input)}` })
    // exec() ends each argument at a NUL: a PTY would run only the part before it (pipes refuse it). Refuse both.
    .refine((cmd) => !cmd.includes('\0'), { error: 'expected no NUL character (\\u0000)' })
    .describe('The command line to run, as you would type it into a shell, e.g. `ls -la src` or `npm test 2>&1`.'),
  workdir,
  shell: z
    .string(expected('a string'))
    .refine((shell) => shell.trim() !== '', { error: (issue) => `expected a shell binary, got ${blank(issue.input)}` })
    .optional()
    .describe(
      "Shell binary that interprets `cmd`, e.g. /bin/bash or zsh. Leave it out to use the user's shell ($SHELL, else /bin/bash).",
    ),
  login: z
    .boolean(expected('true or false'))
    .default(true)
    .describe(
      'true: start the shell as a login shell (`-lc`) so profile files set PATH and friends; false: plain `-c`.',
    ),
  tty: z
    .boolean(expected('true or false'))
    .default(false)
    .describe(
      'true: run in a pseudo-terminal and keep stdin open so you can type into it later with write_stdin (REPLs, prompts, interactive tools). false: plain pipes with stdin at /dev/null, so nothing can hang waiting for input.',
    ),
  yield_time_ms: count(DEFAULT_EXEC_YIELD_TIME_MS).describe(
    `Milliseconds to wait for the command before replying (kept between ${MIN_YIELD_TIME_MS} and ${MAX_YIELD_TIME_MS}). A command that finishes sooner replies at once, and so does one in a terminal that stops to wait for input; one still running keeps running and the reply gives its session_id.`,
  ),
  max_output_tokens: maxOutputTokens,
  sandbox_permissions: sandboxPermissions,
  justification,
  executor,
  cols: terminalSide(`tty only: width of the terminal in characters; default ${DEFAULT_COLS}.`),
  rows: terminalSide(`tty only: height of the terminal in lines; default ${DEFAULT_ROWS}.`),
  screen,
});

/** write_stdin's parameters, the text of `yield_time_ms` quoting the longest poll that `settings` allow. */
export function writeStdinParamsFor(settings: ToolTextSettings) {
  return z.object({
    session_id: sessionId('The session_id from an exec_command reply whose process is still running.'),
    chars: z
      .string(expected('a string'))
      .default('')
      .describe(
        'Text to type into the session, sent exactly as given: add "\\n" to press Enter; "\\u0003" is Ctrl-C, "\\u0004" is Ctrl-D. Leave empty to send nothing and just collect new output.',
      ),
    yield_time_ms: count(DEFAULT_WRITE_YIELD_TIME_MS).describe(
      `Milliseconds to wait for output before replying: ${MIN_YIELD_TIME_MS} to ${MAX_YIELD_TIME_MS} after typing; an empty poll waits at least ${MIN_EMPTY_POLL_YIELD_MS} and at most ${longestPollMs(settings.maxBackgroundPollMs)}. Replies early when the process exits or is back waiting for input.`,
    ),
    max_output_tokens: maxOutputTokens,
    keys: z
      .array(z.string(expected('a key name')), expected('an array of key names'))
      .optional()
      .describe(
        'Keys to press after typing `chars`, in order, by name: Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, Enter, Tab, Backspace, Esc, Space, F1-F12, Ctrl-<key> (Ctrl-C, also C-c), Alt-<key> (also M-x). Arrow keys are sent as the program expects them (full-screen programs switch their encoding). Needs tty=true.',
      ),
    cols: terminalSide(
      'Resize the terminal to this width before typing (the program is told, and redraws); leave out to keep it.',
    ),
    rows: terminalSide('Resize the terminal to this height before typing; leave out to keep it.'),
    screen,
  });
}

/** write_stdin's parameters as the default settings describe them; what checks a call (texts do not change parsing). */
export const writeStdinParams = writeStdinParamsFor(DEFAULT_TOOL_TEXT_SETTINGS);

export const listSessionsParams = z.object({});

/** Codex's one-shot `shell` tool: an argv, run to completion (or its time limit), answered in one reply. */
export const shellParams = z.object({
  command: z
    .array(z.string(expected('a string')), expected('an array of strings'))
    .min(1, { error: 'expected a program and its arguments, got an empty array' })
    .refine((argv) => argv[0]?.trim() !== '', { error: 'expected a program name first, got an empty string' })
    // A NUL would end the argument early at exec time: refuse it rather than run something else.
    .refine((argv) => argv.every((arg) => !arg.includes('\0')), { error: 'expected no NUL character (\\u0000)' })
    .describe(
      'The program and its arguments, run directly without a shell, e.g. ["ls", "-la"]. For pipes, redirections or globs, run a shell yourself: ["bash", "-lc", "npm test 2>&1 | tail"].',
    ),
  workdir,
  timeout_ms: z
    .number(expected('a finite number'))
    .positive(expected('a positive number'))
    .optional()
    .describe(
      `Milliseconds the command may run; past that it is killed with everything it started, and the reply says it timed out. Default ${DEFAULT_EXEC_TIMEOUT_MS}.`,
    ),
  sandbox_permissions: sandboxPermissions,
  justification,
  executor,
});

export const closeSessionParams = z.object({
  session_id: sessionId('Id of the session to end, from an exec_command reply or from list_sessions.'),
});

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/**
 * Wire fields the library names otherwise than by case: one name per concept across the library, the one exec(),
 * the manager's settings and Node use (`command`, `cwd`), where the wire keeps Codex's (`cmd`, `workdir`).
 */
const LIBRARY_NAMES = { cmd: 'command', workdir: 'cwd' } as const;
type LibraryName<K extends string> = K extends keyof typeof LIBRARY_NAMES ? (typeof LIBRARY_NAMES)[K] : CamelCase<K>;
type LibraryShape<Shape> = { [K in keyof Shape as LibraryName<K & string>]: Shape[K] };

/** Wire names already converted: a call converts the same few every time. */
const libraryNames = new Map<string, string>();
function libraryName(name: string): string {
  let converted = libraryNames.get(name);
  if (converted === undefined) {
    converted =
      LIBRARY_NAMES[name as keyof typeof LIBRARY_NAMES] ??
      name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    // Bounded, should names ever come from outside the schemas.
    if (libraryNames.size < 256) libraryNames.set(name, converted);
  }
  return converted;
}

/**
 * Wire fields under the library's names, values untouched: `{ yield_time_ms: 5, cmd: 'ls' }` →
 * `{ yieldTimeMs: 5, command: 'ls' }`.
 */
export function toLibraryFields<Fields extends Record<string, unknown>>(fields: Fields): LibraryShape<Fields> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [libraryName(name), value]),
  ) as LibraryShape<Fields>;
}

/**
 * The same fields under the library's names: what the library's methods take. Strict: a program that misspells a
 * field (or types the wire name, `yield_time_ms` or `cmd`) hears so, where a model's extra fields are ignored on the
 * wire.
 */
function libraryKeys<Shape extends z.ZodRawShape>(schema: z.ZodObject<Shape>): z.ZodObject<LibraryShape<Shape>> {
  const shape = Object.fromEntries(Object.entries(schema.shape).map(([name, field]) => [libraryName(name), field]));
  return z.strictObject(shape) as unknown as z.ZodObject<LibraryShape<Shape>>;
}

export const execCommandRequest = libraryKeys(execCommandParams);
export const writeStdinRequest = libraryKeys(writeStdinParams);
export const closeSessionRequest = libraryKeys(closeSessionParams);
export const shellRequest = libraryKeys(shellParams);

/**
 * exec_command for the library: `{ command: 'npm test', cwd: 'web', yieldTimeMs: 5000 }`. Fields are checked at run
 * time too: callers often pass what a model typed.
 */
export type ExecCommandRequest = z.input<typeof execCommandRequest>;
export type WriteStdinRequest = z.input<typeof writeStdinRequest>;
/** The one-shot shell tool for the library: `{ command: ['ls', '-la'], cwd: 'web', timeoutMs: 5000 }`. */
export type ShellRequest = z.input<typeof shellRequest>;

/**
 * What a one-shot shell call answers (here, beside its request, so the manager can produce it and the tools format
 * it). Exit is data: a command that fails or times out is a response, not an error.
 */
export interface ShellResponse {
  /** 128 + n for a death by signal n; 124 when it timed out. */
  exitCode: number;
  /**
   * stdout then stderr as one text, as exec() aggregates them; after a timeout it already begins with the line
   * `command timed out after N milliseconds`.
   */
  output: string;
  durationMs: number;
  timedOut: boolean;
}

/** write_stdin's usual fields under one shape's names: the library's, or the wire's. */
interface PlainWriteNames {
  sessionId: string;
  chars: string;
  yieldTimeMs: string;
  maxOutputTokens: string;
}

/**
 * The usual write_stdin call (a session id, text, a yield, a token limit: each a plain value), checked and filled in
 * without zod, as `schema` would: a round trip is well under a millisecond, and zod's pass was a tenth of it. Anything
 * else (a quoted id, keys, a resize, a wrong value, an unknown field) is undefined: zod checks it, and words the
 * errors. test/manager/requests.test.ts holds the two to the same answers.
 */
function plainWriteStdin(args: object, names: PlainWriteNames): Record<string, unknown> | undefined {
  let sessionId: number | undefined;
  let chars = '';
  let yieldTimeMs = DEFAULT_WRITE_YIELD_TIME_MS;
  let maxOutputTokens = DEFAULT_MAX_OUTPUT_TOKENS;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  for (const [name, value] of Object.entries(args)) {
    // null is left out (see parseArguments); undefined too, but only under a known name: a strict schema refuses an
    // unknown field whatever it holds.
    if (value === null) continue;
    if (value === undefined) {
      if (Object.values(names).includes(name)) continue;
      return undefined;
    }
    if (name === names.sessionId) {
      if (!Number.isSafeInteger(value) || (value as number) <= 0) return undefined;
      sessionId = value as number;
    } else if (name === names.chars) {
      if (typeof value !== 'string') return undefined;
      chars = value;
    } else if (name === names.yieldTimeMs) {
      const checked = count(value);
      if (checked === undefined) return undefined;
      yieldTimeMs = checked;
    } else if (name === names.maxOutputTokens) {
      const checked = count(value);
      if (checked === undefined) return undefined;
      maxOutputTokens = checked;
    } else {
      return undefined;
    }
  }
  if (sessionId === undefined) return undefined;
  return {
    [names.sessionId]: sessionId,
    [names.chars]: chars,
    [names.yieldTimeMs]: yieldTimeMs,
    [names.maxOutputTokens]: maxOutputTokens,
  };
}

const WIRE_WRITE_NAMES: PlainWriteNames = {
  sessionId: 'session_id',
  chars: 'chars',
  yieldTimeMs: 'yield_time_ms',
  maxOutputTokens: 'max_output_tokens',
};
/** The same under the library's names, as libraryKeys names the library's schema's fields. */
const LIBRARY_WRITE_NAMES = Object.fromEntries(
  Object.entries(WIRE_WRITE_NAMES).map(([field, name]) => [field, libraryName(name)]),
) as unknown as PlainWriteNames;

/** The schemas whose usual calls are checked without zod (see plainWriteStdin). */
const plainCheckers = new Map<z.ZodObject, (args: object) => Record<string, unknown> | undefined>([
  [writeStdinParams, (args) => plainWriteStdin(args, WIRE_WRITE_NAMES)],
  [writeStdinRequest, (args) => plainWriteStdin(args, LIBRARY_WRITE_NAMES)],
]);

/**
 * Checks `args` against `schema` and fills in its defaults; `null` fields count as left out (JSON callers write
 * them). Throws one INVALID_ARGUMENT error naming every wrong field.
 */
export function parseArguments<Schema extends z.ZodObject>(schema: Schema, args: unknown): z.output<Schema> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw invalidArgument(`Invalid arguments: expected an object, got ${describeValue(args)}`);
  }
  const plain = plainCheckers.get(schema)?.(args);
  if (plain !== undefined) return plain as z.output<Schema>;
  const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
  const result = schema.safeParse(present, { reportInput: true });
  if (!result.success) {
    throw invalidArgument(`Invalid arguments: ${result.error.issues.map((issue) => describeIssue(issue)).join('; ')}`);
  }
  return result.data;
}
