import { MAX_TOOL_OUTPUT_TOKENS } from '../manager/constants.js';
import { invalidArgument } from '../manager/errors.js';
import { formatResponse } from '../manager/format.js';
import {
  closeSessionParams,
  execCommandParams,
  parseArguments,
  shellParams,
  toLibraryFields,
  writeStdinParams,
  type ExecCommandRequest,
  type ShellRequest,
  type ShellResponse,
  type ToolTextSettings,
  type WriteStdinRequest,
} from '../manager/requests.js';
import type { CallOptions, ClosedSession, ExecResponse, SessionInfo } from '../manager/types.js';
import { TOOL_NAMES, isToolName, type ToolName } from './definitions.js';
import { toolFailure, type ToolFailure } from './errors.js';
import type { CloseSessionResult, ExecResult, SessionListResult, ShellResult } from './output-schemas.js';
import { formatClosedSession, formatSessionList } from './session-text.js';
import { shellReply } from './shell-format.js';
import { toCloseSessionResult, toExecResult, toSessionList } from './structured.js';

/** What the tools need from a manager; UnifiedExecManager is one, a test double or a remote proxy can be another. */
export interface ExecSessions {
  execCommand(request: ExecCommandRequest, options?: CallOptions): Promise<ExecResponse>;
  writeStdin(request: WriteStdinRequest, options?: CallOptions): Promise<ExecResponse>;
  listSessions(): SessionInfo[];
  closeSession(sessionId: number): Promise<ClosedSession>;
  /** Codex's one-shot `shell` tool: runs an argv to completion. Without it, `shell` is not offered. */
  shell?(request: ShellRequest, options?: CallOptions): Promise<ShellResponse>;
  /**
   * The settings the sessions run with (a UnifiedExecManager's), for the tools' texts to quote the limits in force
   * (the MCP server's and aiSdkTools' descriptions). Absent: the default settings.
   */
  readonly settings?: ToolTextSettings;
}

export interface ToolSuccess<Structured> {
  isError: false;
  /** The text for the model; for exec_command and write_stdin the Codex-compatible reply. */
  text: string;
  structured: Structured;
}

export type ToolOutcome<Structured = ExecResult | SessionListResult | CloseSessionResult | ShellResult> =
  ToolSuccess<Structured> | ToolFailure;

interface StructuredByTool {
  exec_command: ExecResult;
  write_stdin: ExecResult;
  list_sessions: SessionListResult;
  close_session: CloseSessionResult;
  shell: ShellResult;
}

/**
 * Runs one tool call given its wire (snake_case) arguments as a model produced them, an object or a JSON string
 * (OpenAI hands them over as a string): validates them, calls the manager, and answers with text and structured
 * data. Never throws: failures come back with `isError: true`. `offered`: the tools the caller offered the model
 * (default: the four of TOOL_NAMES; add `shell` to offer it); any other name is answered as an unknown tool.
 * `options.onOutput` streams the output of exec_command, write_stdin and shell while they wait (see CallOptions).
 */
export async function callTool<Name extends ToolName>(
  sessions: ExecSessions,
  name: Name,
  args: unknown,
  offered?: readonly ToolName[],
  options?: CallOptions,
): Promise<ToolOutcome<StructuredByTool[Name]>>;
export async function callTool(
  sessions: ExecSessions,
  name: string,
  args: unknown,
  offered?: readonly ToolName[],
  options?: CallOptions,
): Promise<ToolOutcome>;
export async function callTool(
  sessions: ExecSessions,
  name: string,
  args: unknown,
  offered: readonly ToolName[] = TOOL_NAMES,
  options?: CallOptions,
): Promise<ToolOutcome> {
  if (!isToolName(name) || !offered.includes(name)) {
    return invalidCall(`Tool ${name} not found; the tools are ${[...new Set(offered)].join(', ')}`);
  }
  let parsed: unknown = args ?? {};
  try {
    parsed = typeof args === 'string' ? parseJsonArguments(args) : parsed;
    return await dispatch(sessions, name, parsed, options);
  } catch (error) {
    return toolFailure(name, parsed, error);
  }
}

function invalidCall(text: string): ToolFailure {
  return { isError: true, text, code: 'INVALID_ARGUMENT', cause: undefined };
}

/** Arguments as a JSON string: an empty string means none. */
function parseJsonArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`Invalid arguments: not valid JSON (${(error as Error).message})`);
  }
}

/** An exec_command or write_stdin reply as a tool outcome: the text (with our state lines when asked), and its fields. */
function execOutcome(response: ExecResponse, options: CallOptions | undefined): ToolSuccess<ExecResult> {
  return {
    isError: false,
    text: formatResponse(response, { stateLines: options?.stateLines === true }),
    structured: toExecResult(response),
  };
}

async function dispatch(
  sessions: ExecSessions,
  name: ToolName,
  args: unknown,
  options: CallOptions | undefined,
): Promise<ToolOutcome> {
  switch (name) {
    case 'exec_command': {
      const a = parseArguments(execCommandParams, args);
      const response = await sessions.execCommand(
        {
          ...toLibraryFields(a),
          maxOutputTokens: Math.min(a.max_output_tokens, MAX_TOOL_OUTPUT_TOKENS),
        },
        options,
      );
      return execOutcome(response, options);
    }
    case 'write_stdin': {
      const a = parseArguments(writeStdinParams, args);
      const response = await sessions.writeStdin(
        {
          ...toLibraryFields(a),
          maxOutputTokens: Math.min(a.max_output_tokens, MAX_TOOL_OUTPUT_TOKENS),
        },
        options,
      );
      return execOutcome(response, options);
    }
    case 'list_sessions': {
      const structured = toSessionList(sessions.listSessions());
      return { isError: false, text: formatSessionList(structured), structured };
    }
    case 'close_session': {
      const a = parseArguments(closeSessionParams, args);
      const structured = toCloseSessionResult(await sessions.closeSession(a.session_id));
      return { isError: false, text: formatClosedSession(structured), structured };
    }
    case 'shell': {
      // Offered by name (a server told to offer it, say) but not by the sessions behind it.
      if (!sessions.shell) return invalidCall('Tool shell is not offered by this server');
      const a = parseArguments(shellParams, args);
      const response = await sessions.shell(toLibraryFields(a), options);
      return { isError: false, ...shellReply(response) };
    }
  }
}
