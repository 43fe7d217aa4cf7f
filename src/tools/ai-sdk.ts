import { tool, type Tool } from 'ai';
import type { z } from 'zod';
import { UnifiedExecError } from '../manager/errors.js';
import { TOOL_DEFINITIONS, type ToolName } from './definitions.js';
import { closeSessionParams, execCommandParams, listSessionsParams, writeStdinParams } from '../manager/requests.js';
import { callTool, type ExecSessions } from './run-tool.js';

/** Inputs arrive parsed by the AI SDK, defaults filled in. (A type alias, so it is assignable to the AI SDK's ToolSet.) */
export type AiSdkTools = {
  exec_command: Tool<z.output<typeof execCommandParams>, string>;
  write_stdin: Tool<z.output<typeof writeStdinParams>, string>;
  list_sessions: Tool<z.output<typeof listSessionsParams>, string>;
  close_session: Tool<z.output<typeof closeSessionParams>, string>;
};

/**
 * The four tools for the Vercel AI SDK (`generateText({ tools: aiSdkTools(manager) })`), bound to `sessions`.
 * Each returns the text a model reads; a failure throws a UnifiedExecError whose message is that text, which
 * the AI SDK hands to the model as a tool error.
 */
export function aiSdkTools(sessions: ExecSessions): AiSdkTools {
  const run = async (name: ToolName, input: unknown): Promise<string> => {
    const outcome = await callTool(sessions, name, input);
    if (!outcome.isError) return outcome.text;
    throw outcome.cause instanceof UnifiedExecError
      ? new UnifiedExecError(outcome.cause.code, outcome.text, { cause: outcome.cause })
      : new Error(outcome.text, { cause: outcome.cause });
  };
  return {
    exec_command: tool({
      description: TOOL_DEFINITIONS.exec_command.description,
      inputSchema: execCommandParams,
      execute: (input) => run('exec_command', input),
    }),
    write_stdin: tool({
      description: TOOL_DEFINITIONS.write_stdin.description,
      inputSchema: writeStdinParams,
      execute: (input) => run('write_stdin', input),
    }),
    list_sessions: tool({
      description: TOOL_DEFINITIONS.list_sessions.description,
      inputSchema: listSessionsParams,
      execute: (input) => run('list_sessions', input),
    }),
    close_session: tool({
      description: TOOL_DEFINITIONS.close_session.description,
      inputSchema: closeSessionParams,
      execute: (input) => run('close_session', input),
    }),
  };
}
