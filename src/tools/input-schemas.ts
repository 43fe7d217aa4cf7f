import { z } from 'zod';
import {
  DEFAULT_EXEC_YIELD_TIME_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_WRITE_YIELD_TIME_MS,
} from '../manager/constants.js';

// Wire names are snake_case, as models trained on the Codex contract type them. Descriptions are ours.

/**
 * Tool replies carry the output twice (text and structured) and JSON-escape it (a NUL takes 6 bytes): above this,
 * one reply could pass the 10 MiB message limit of MCP clients, and the client would drop the connection.
 */
export const MAX_TOOL_OUTPUT_TOKENS = 100_000;

const maxOutputTokens = z
  .number()
  .nonnegative()
  .default(DEFAULT_MAX_OUTPUT_TOKENS)
  .transform((tokens) => Math.min(tokens, MAX_TOOL_OUTPUT_TOKENS))
  .describe(
    `Largest output to return, in tokens of about 4 bytes each (at most ${MAX_TOOL_OUTPUT_TOKENS}). Longer output keeps its beginning and end and reports how much of the middle was cut.`,
  );

export const execCommandInput = z.object({
  cmd: z
    .string()
    .min(1)
    .describe('The command line to run, as you would type it into a shell, e.g. `ls -la src` or `npm test 2>&1`.'),
  workdir: z
    .string()
    .optional()
    .describe(
      "Directory to run the command in. A relative path is taken from the server's working directory; leave it out to use that directory.",
    ),
  shell: z
    .string()
    .optional()
    .describe(
      "Shell binary that interprets `cmd`, e.g. /bin/bash or zsh. Leave it out to use the user's shell ($SHELL, else /bin/bash).",
    ),
  login: z
    .boolean()
    .default(true)
    .describe(
      'true: start the shell as a login shell (`-lc`) so profile files set PATH and friends; false: plain `-c`.',
    ),
  tty: z
    .boolean()
    .default(false)
    .describe(
      'true: run in a pseudo-terminal and keep stdin open so you can type into it later with write_stdin (REPLs, prompts, interactive tools). false: plain pipes with stdin at /dev/null, so nothing can hang waiting for input.',
    ),
  yield_time_ms: z
    .number()
    .nonnegative()
    .default(DEFAULT_EXEC_YIELD_TIME_MS)
    .describe(
      'Milliseconds to wait for the command before replying (kept between 250 and 30000). A command that finishes sooner replies at once, and so does one in a terminal that stops to wait for input; one still running keeps running and the reply gives its session_id.',
    ),
  max_output_tokens: maxOutputTokens,
});

/** A session id, advertised as an integer; models sometimes quote it, so a string of digits is taken too. */
const sessionId = (description: string) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value),
      z.number().int().positive(),
    )
    .describe(description);

export const writeStdinInput = z.object({
  session_id: sessionId('The session_id from an exec_command reply whose process is still running.'),
  chars: z
    .string()
    .default('')
    .describe(
      'Text to type into the session, sent exactly as given: add "\\n" to press Enter; "\\u0003" is Ctrl-C, "\\u0004" is Ctrl-D. Leave empty to send nothing and just collect new output.',
    ),
  yield_time_ms: z
    .number()
    .nonnegative()
    .default(DEFAULT_WRITE_YIELD_TIME_MS)
    .describe(
      'Milliseconds to wait for output before replying: 250 to 30000 after typing; an empty poll waits at least 5000 and at most 300000. Replies early when the process exits or is back waiting for input.',
    ),
  max_output_tokens: maxOutputTokens,
});

export const listSessionsInput = z.object({});

export const closeSessionInput = z.object({
  session_id: sessionId('Id of the session to end, from an exec_command reply or from list_sessions.'),
});

export type ExecCommandArgs = z.input<typeof execCommandInput>;
export type WriteStdinArgs = z.input<typeof writeStdinInput>;
export type ListSessionsArgs = z.input<typeof listSessionsInput>;
export type CloseSessionArgs = z.input<typeof closeSessionInput>;
