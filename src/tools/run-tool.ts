import type { z } from 'zod';
import type { ExecCommandRequest, ExecResponse, SessionInfo, WriteStdinRequest } from '../manager/types.js';
import { formatResponse } from '../manager/format.js';
import { TOOL_DEFINITIONS, isToolName, type ToolName } from './definitions.js';
import { invalidArguments, toolFailure, type ToolFailure } from './errors.js';
import { closeSessionInput, execCommandInput, writeStdinInput } from './input-schemas.js';
import type { CloseSessionResult, ExecResult, SessionListResult } from './output-schemas.js';
import { formatClosedSession, formatSessionList } from './session-text.js';
import { toCloseSessionResult, toExecResult, toSessionList } from './structured.js';

/** What the tools need from a manager; UnifiedExecManager is one, a test double or a remote proxy can be another. */
export interface ExecSessions {
  execCommand(request: ExecCommandRequest): Promise<ExecResponse>;
  writeStdin(request: WriteStdinRequest): Promise<ExecResponse>;
  listSessions(): SessionInfo[];
  closeSession(sessionId: number): Promise<{ sessionId: number; exitCode: number | undefined }>;
}

export interface ToolSuccess<Structured> {
  isError: false;
  /** The text for the model; for exec_command and write_stdin the Codex-compatible reply. */
  text: string;
  structured: Structured;
}

export type ToolOutcome<Structured = ExecResult | SessionListResult | CloseSessionResult> =
  ToolSuccess<Structured> | ToolFailure;

interface StructuredByTool {
  exec_command: ExecResult;
  write_stdin: ExecResult;
  list_sessions: SessionListResult;
  close_session: CloseSessionResult;
}

/**
 * Runs one tool call given its wire (snake_case) arguments, as a model produced them: validates them, calls the
 * manager, and answers with text and structured data. Never throws: failures come back with `isError: true`.
 */
export async function callTool<Name extends ToolName>(
  sessions: ExecSessions,
  name: Name,
  args: unknown,
): Promise<ToolOutcome<StructuredByTool[Name]>>;
export async function callTool(sessions: ExecSessions, name: string, args: unknown): Promise<ToolOutcome>;
export async function callTool(sessions: ExecSessions, name: string, args: unknown): Promise<ToolOutcome> {
  if (!isToolName(name)) {
    return {
      isError: true,
      text: `Unknown tool \`${name}\`; the tools are ${Object.keys(TOOL_DEFINITIONS).join(', ')}`,
      code: 'INVALID_ARGUMENT',
      cause: undefined,
    };
  }
  try {
    return await dispatch(sessions, name, args ?? {});
  } catch (error) {
    return toolFailure(name, args, error);
  }
}

async function dispatch(sessions: ExecSessions, name: ToolName, args: unknown): Promise<ToolOutcome> {
  switch (name) {
    case 'exec_command': {
      const a = parse(execCommandInput, args);
      const response = await sessions.execCommand({
        cmd: a.cmd,
        workdir: a.workdir,
        shell: a.shell,
        login: a.login,
        tty: a.tty,
        yieldTimeMs: a.yield_time_ms,
        maxOutputTokens: a.max_output_tokens,
      });
      return { isError: false, text: formatResponse(response), structured: toExecResult(response) };
    }
    case 'write_stdin': {
      const a = parse(writeStdinInput, args);
      const response = await sessions.writeStdin({
        sessionId: a.session_id,
        chars: a.chars,
        yieldTimeMs: a.yield_time_ms,
        maxOutputTokens: a.max_output_tokens,
      });
      return { isError: false, text: formatResponse(response), structured: toExecResult(response) };
    }
    case 'list_sessions': {
      const structured = toSessionList(sessions.listSessions());
      return { isError: false, text: formatSessionList(structured), structured };
    }
    case 'close_session': {
      const a = parse(closeSessionInput, args);
      const structured = toCloseSessionResult(await sessions.closeSession(a.session_id));
      return { isError: false, text: formatClosedSession(structured), structured };
    }
  }
}

function parse<T>(schema: z.ZodType<T>, args: unknown): T {
  const result = schema.safeParse(args);
  if (!result.success) throw invalidArguments(result.error);
  return result.data;
}
