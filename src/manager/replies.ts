import { z } from 'zod';
import { BYTES_PER_TOKEN } from '../buffer/truncate.js';
import { field, mappedField, wireSchema, type LibraryForm, type ReplyFields } from './reply-fields.js';
import type { SandboxDenial } from '../sandbox/denial.js';

// The replies of exec_command / write_stdin, list_sessions and close_session, once (see reply-fields.ts): the
// library's types (ExecResponse, SessionInfo, ClosedSession), the structured results' schemas (the MCP outputSchema)
// and the mapping between them come from these tables. The descriptions are what a model reads of each field.

const sessionState = z
  .enum(['exited', 'waiting_for_input', 'running'])
  .describe('exited, waiting_for_input (blocked reading its terminal) or running.');
export type SessionState = z.output<typeof sessionState>;

/** A terminal's screen as a reply shows it: what a person would see. Its fields keep their names on the wire. */
const screenView = z.object({
  cols: z.number(),
  rows: z.number(),
  /** Without trailing spaces. */
  lines: z.array(z.string()).describe('Every row of the terminal, top to bottom.'),
  cursor: z.object({ row: z.number(), col: z.number() }).describe('Zero-based.'),
  alternate: z.boolean().describe('A full-screen program (vim, less, top) is in the alternate screen.'),
  /** A program drawing on the normal screen: see src/screen/cursor-address.ts. */
  cursorAddressed: z
    .boolean()
    .describe(
      'The output since the last reply moved the cursor to rows and columns outside the alternate screen: a program drawing on the normal screen (vim under TERM=dumb).',
    ),
});
export type ScreenView = z.output<typeof screenView>;

const runningSessionId = z
  .number()
  .optional()
  .describe('Present while the process runs: pass it to write_stdin or close_session.');

export const execReplyFields = {
  chunkId: field(z.string().describe('6 lowercase hex characters naming this reply.')),
  wallTimeSeconds: field(z.number().describe('How long the call took.')),
  output: field(z.string().describe('What the process printed during the call, truncated to max_output_tokens.')),
  /** ceil(bytes / BYTES_PER_TOKEN) of everything printed during the call, dropped bytes included. */
  originalTokenCount: field(
    z.number().describe(`Size of the untruncated output, in tokens of ${BYTES_PER_TOKEN} bytes (rounded up).`),
  ),
  exitCode: field(
    z
      .number()
      .optional()
      .describe(
        'Present when the process has exited; the session is then gone. A death by signal n is 128 + n, or 1 in a terminal (as Codex).',
      ),
  ),
  signal: field(z.string().optional().describe('The signal that ended the process, when one did (SIGINT, SIGKILL).')),
  // The compat contract: a reply carries exactly one of exit_code and session_id; an exit wins.
  sessionId: mappedField(runningSessionId, runningSessionId, (id, reply) =>
    reply.exitCode === undefined ? id : undefined,
  ),
  state: field(sessionState),
  /** The terminal has echo off in canonical mode: a password prompt. */
  secretPrompt: field(z.boolean().optional().describe('true when the terminal has echo off, as at a password prompt.')),
  /** Lines for the model, e.g. the 60-session warning; on the wire only when there are some. */
  warnings: mappedField(
    z.array(z.string()),
    z.array(z.string()).optional().describe('Notes for the model, such as the open-session warning.'),
    (warnings) => (warnings.length > 0 ? warnings : undefined),
  ),
  /** Unless the call said `screen: false`. */
  screen: field(
    screenView
      .optional()
      .describe(
        'What the terminal shows: while a full-screen program is in the alternate screen, in a reply whose output addressed the cursor (a program drawing a screen), or always when asked with screen=true.',
      ),
  ),
} satisfies ReplyFields;

/** What every exec_command or write_stdin reply carries, running or exited. */
type ExecReplyCommon = Omit<
  LibraryForm<typeof execReplyFields>,
  'sessionId' | 'state' | 'exitCode' | 'signal' | 'secretPrompt'
>;

/** A reply whose process still runs: pass `sessionId` to writeStdin or closeSession. */
export interface RunningExecResponse extends ExecReplyCommon {
  state: 'running' | 'waiting_for_input';
  sessionId: number;
  /** The terminal has echo off in canonical mode: a password prompt. */
  secretPrompt?: boolean;
  exitCode?: undefined;
  signal?: undefined;
  sandboxDenial?: undefined;
  patch?: undefined;
}

/** A reply whose process has exited: the session is gone (a later call on its id gets UNKNOWN_SESSION). */
export interface ExitedExecResponse extends ExecReplyCommon {
  state: 'exited';
  /** A death by signal n is 128 + n, or 1 in a terminal (as Codex). */
  exitCode: number;
  /** The signal that ended the process, when one did (SIGINT, SIGKILL). */
  signal?: string;
  sessionId?: undefined;
  secretPrompt?: undefined;
  /** The process failed because the sandbox refused something (a write, a connection); a warning line says so. */
  sandboxDenial?: SandboxDenial;
  /**
   * The command was an apply_patch invocation, applied by the manager rather than run in a shell (no session); the
   * reply reads as Codex's apply_patch does. `durationMs`: how long applying took.
   */
  patch?: { durationMs: number };
}

/**
 * An exec_command or write_stdin reply, as the library answers it: `state` tells which, so
 * `if (reply.state !== 'exited') reply.sessionId` is a number, and `reply.exitCode` one otherwise.
 */
export type ExecResponse = RunningExecResponse | ExitedExecResponse;

export const execResultOutput = wireSchema(execReplyFields).refine(
  (r) => (r.exit_code === undefined) !== (r.session_id === undefined),
  { message: 'Expected exactly one of exit_code and session_id' },
);

export const sessionInfoFields = {
  sessionId: field(z.number().describe('Pass it to write_stdin or close_session.')),
  command: field(z.string().describe('The command line the session runs.')),
  tty: field(z.boolean().describe('Whether it runs in a pseudo-terminal (and so accepts typed input).')),
  /** The session leader's pid on this machine; absent when the session runs elsewhere. */
  pid: field(
    z.number().optional().describe('Process id of the shell that runs the command, when it runs on this machine.'),
  ),
  executor: field(
    z
      .string()
      .describe('Where it runs: the executor name to pass to exec_command (`local` unless the server has others).'),
  ),
  /** `local`, `ws://10.0.0.2:8700`, `docker://web-1`. */
  location: field(z.string().describe('What that executor is: `local`, an exec-server URL, or a container.')),
  startedAt: mappedField(z.date(), z.string().describe('ISO 8601 time.'), (date) => date.toISOString()),
  lastUsedAt: mappedField(z.date(), z.string().describe('ISO 8601 time.'), (date) => date.toISOString()),
  exited: field(z.boolean().describe('true when the process has ended but its last output has not been read yet.')),
  exitCode: field(z.number().optional().describe('How the process ended, once it has.')),
  bufferedBytes: field(z.number().describe('Output bytes waiting to be read.')),
} satisfies ReplyFields;

export type SessionInfo = LibraryForm<typeof sessionInfoFields>;

export const sessionListOutput = z.object({
  sessions: z.array(wireSchema(sessionInfoFields)).describe('Every open session, oldest first.'),
});

export const closedSessionFields = {
  sessionId: field(z.number().describe('The session that was ended.')),
  exitCode: field(
    z.number().optional().describe('How the process ended, when known (128 + signal number for a signal).'),
  ),
} satisfies ReplyFields;

/** What closing a session answers. */
export type ClosedSession = LibraryForm<typeof closedSessionFields>;

export const closeSessionOutput = wireSchema(closedSessionFields);

export type ExecResult = z.output<typeof execResultOutput>;
export type SessionListResult = z.output<typeof sessionListOutput>;
export type CloseSessionResult = z.output<typeof closeSessionOutput>;
