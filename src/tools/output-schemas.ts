import { z } from 'zod';

// Structured results in snake_case, beside the compat text. Also MCP `outputSchema`s, so clients can check them.

export const execResultOutput = z
  .object({
    chunk_id: z.string().describe('6 lowercase hex characters naming this reply.'),
    wall_time_seconds: z.number().describe('How long the call took.'),
    output: z.string().describe('What the process printed during the call, truncated to max_output_tokens.'),
    original_token_count: z.number().describe('Size of the untruncated output, in tokens of 4 bytes (rounded up).'),
    exit_code: z
      .number()
      .optional()
      .describe(
        'Present when the process has exited; the session is then gone. A death by signal n is 128 + n, or 1 in a terminal (as Codex).',
      ),
    signal: z.string().optional().describe('The signal that ended the process, when one did (SIGINT, SIGKILL).'),
    session_id: z
      .number()
      .optional()
      .describe('Present while the process runs: pass it to write_stdin or close_session.'),
    state: z
      .enum(['exited', 'waiting_for_input', 'running'])
      .describe('exited, waiting_for_input (blocked reading its terminal) or running.'),
    secret_prompt: z.boolean().optional().describe('true when the terminal has echo off, as at a password prompt.'),
    warnings: z.array(z.string()).optional().describe('Notes for the model, such as the open-session warning.'),
    screen: z
      .object({
        cols: z.number(),
        rows: z.number(),
        lines: z.array(z.string()).describe('Every row of the terminal, top to bottom.'),
        cursor: z.object({ row: z.number(), col: z.number() }).describe('Zero-based.'),
        alternate: z.boolean().describe('A full-screen program (vim, less, top) is in the alternate screen.'),
        cursorAddressed: z
          .boolean()
          .describe(
            'The output since the last reply moved the cursor to rows and columns outside the alternate screen: a program drawing on the normal screen (vim under TERM=dumb).',
          ),
      })
      .optional()
      .describe(
        'What the terminal shows: while a full-screen program is in the alternate screen, in a reply whose output addressed the cursor (a program drawing a screen), or always when asked with screen=true.',
      ),
  })
  // The compat contract: a reply carries exactly one of the two.
  .refine((r) => (r.exit_code === undefined) !== (r.session_id === undefined), {
    message: 'Expected exactly one of exit_code and session_id',
  });

export const sessionListOutput = z.object({
  sessions: z
    .array(
      z.object({
        session_id: z.number().describe('Pass it to write_stdin or close_session.'),
        command: z.string().describe('The command line the session runs.'),
        tty: z.boolean().describe('Whether it runs in a pseudo-terminal (and so accepts typed input).'),
        pid: z
          .number()
          .optional()
          .describe('Process id of the shell that runs the command, when it runs on this machine.'),
        executor: z
          .string()
          .describe('Where it runs: the executor name to pass to exec_command (`local` unless the server has others).'),
        location: z.string().describe('What that executor is: `local`, an exec-server URL, or a container.'),
        started_at: z.string().describe('ISO 8601 time.'),
        last_used_at: z.string().describe('ISO 8601 time.'),
        exited: z.boolean().describe('true when the process has ended but its last output has not been read yet.'),
        exit_code: z.number().optional().describe('How the process ended, once it has.'),
        buffered_bytes: z.number().describe('Output bytes waiting to be read.'),
      }),
    )
    .describe('Every open session, oldest first.'),
});

export const closeSessionOutput = z.object({
  session_id: z.number().describe('The session that was ended.'),
  exit_code: z.number().optional().describe('How the process ended, when known (128 + signal number for a signal).'),
});

export const shellResultOutput = z.object({
  exit_code: z.number().describe('How the command ended: 128 + signal number for a signal, 124 for a timeout.'),
  output: z
    .string()
    .describe('stdout then stderr, as in the text reply: truncated to 10000 tokens, led by the timeout line if any.'),
  duration_seconds: z.number().describe('How long the command ran, rounded to a tenth of a second.'),
  timed_out: z.boolean().describe('true when the command was killed at its time limit.'),
});

export type ExecResult = z.infer<typeof execResultOutput>;
export type SessionListResult = z.infer<typeof sessionListOutput>;
export type CloseSessionResult = z.infer<typeof closeSessionOutput>;
export type ShellResult = z.infer<typeof shellResultOutput>;
