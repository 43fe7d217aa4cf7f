import { z } from 'zod';
import { SHELL_OUTPUT_MAX_TOKENS, TIMEOUT_EXIT_CODE } from '../manager/constants.js';

// Structured results in snake_case, beside the compat text. Also MCP `outputSchema`s, so clients can check them.
// The session tools' replies are defined with the library's in manager/replies.ts.

export {
  closeSessionOutput,
  execResultOutput,
  sessionListOutput,
  type CloseSessionResult,
  type ExecResult,
  type SessionListResult,
} from '../manager/replies.js';

export const shellResultOutput = z.object({
  exit_code: z
    .number()
    .describe(`How the command ended: 128 + signal number for a signal, ${TIMEOUT_EXIT_CODE} for a timeout.`),
  output: z
    .string()
    .describe(
      `stdout then stderr, as in the text reply: truncated to ${SHELL_OUTPUT_MAX_TOKENS} tokens, led by the timeout line if any.`,
    ),
  duration_seconds: z.number().describe('How long the command ran, rounded to a tenth of a second.'),
  timed_out: z.boolean().describe('true when the command was killed at its time limit.'),
});

export type ShellResult = z.infer<typeof shellResultOutput>;
