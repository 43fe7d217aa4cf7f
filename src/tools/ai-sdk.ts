import { tool, type Tool } from 'ai';
import type { z } from 'zod';
import { UnifiedExecError } from '../manager/errors.js';
import { TOOL_NAMES, defineTools, offeredTools, type ToolName } from './definitions.js';
import {
  closeSessionParams,
  execCommandParams,
  listSessionsParams,
  shellParams,
  writeStdinParams,
} from '../manager/requests.js';
import { callTool, type ExecSessions } from './run-tool.js';

/** Inputs arrive parsed by the AI SDK, defaults filled in. (A type alias, so it is assignable to the AI SDK's ToolSet.) */
export type AiSdkTools = {
  exec_command: Tool<z.output<typeof execCommandParams>, string>;
  write_stdin: Tool<z.output<typeof writeStdinParams>, string>;
  list_sessions: Tool<z.output<typeof listSessionsParams>, string>;
  close_session: Tool<z.output<typeof closeSessionParams>, string>;
};

/** Every tool there is, Codex's one-shot `shell` too. */
export type AllAiSdkTools = AiSdkTools & {
  shell: Tool<z.output<typeof shellParams>, string>;
};

/**
 * Tools for the Vercel AI SDK (`generateText({ tools: aiSdkTools(manager) })`), bound to `sessions` and described
 * with their settings (`sessions.settings`): `names`, default the four. Each returns the text a model reads; a failure
 * throws a UnifiedExecError whose message is that text, which the AI SDK hands to the model as a tool error.
 */
export function aiSdkTools(sessions: ExecSessions): AiSdkTools;
export function aiSdkTools<const Names extends readonly ToolName[]>(
  sessions: ExecSessions,
  names: Names,
): Pick<AllAiSdkTools, Names[number]>;
export function aiSdkTools(sessions: ExecSessions, names: readonly ToolName[] = TOOL_NAMES): Partial<AllAiSdkTools> {
  const offered = offeredTools(names);
  const run = async (name: ToolName, input: unknown): Promise<string> => {
    const outcome = await callTool(sessions, name, input, offered);
    if (!outcome.isError) return outcome.text;
    throw outcome.cause instanceof UnifiedExecError
      ? new UnifiedExecError(outcome.cause.code, outcome.text, { cause: outcome.cause })
      : new Error(outcome.text, { cause: outcome.cause });
  };
  const definitions = defineTools(sessions.settings);
  const all: AllAiSdkTools = {
    exec_command: tool({
      description: definitions.exec_command.description,
      inputSchema: definitions.exec_command.input,
      execute: (input) => run('exec_command', input),
    }),
    write_stdin: tool({
      description: definitions.write_stdin.description,
      inputSchema: definitions.write_stdin.input,
      execute: (input) => run('write_stdin', input),
    }),
    list_sessions: tool({
      description: definitions.list_sessions.description,
      inputSchema: definitions.list_sessions.input,
      execute: (input) => run('list_sessions', input),
    }),
    close_session: tool({
      description: definitions.close_session.description,
      inputSchema: definitions.close_session.input,
      execute: (input) => run('close_session', input),
    }),
    shell: tool({
      description: definitions.shell.description,
      inputSchema: definitions.shell.input,
      execute: (input) => run('shell', input),
    }),
  };
  return Object.fromEntries(offered.map((name) => [name, all[name]]));
}
