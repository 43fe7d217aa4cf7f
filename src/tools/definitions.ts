import type { z } from 'zod';
import { invalidArgument } from '../manager/errors.js';
import {
  DEFAULT_TOOL_TEXT_SETTINGS,
  closeSessionParams,
  execCommandParams,
  listSessionsParams,
  shellParams,
  writeStdinParamsFor,
  type ToolTextSettings,
} from '../manager/requests.js';
import { closeSessionOutput, execResultOutput, sessionListOutput, shellResultOutput } from './output-schemas.js';

export type { ToolTextSettings } from '../manager/requests.js';

/** The tools offered unless told otherwise: exec sessions. */
export const TOOL_NAMES = ['exec_command', 'write_stdin', 'list_sessions', 'close_session'] as const;
/** Every tool there is; `shell` (Codex's one-shot argv tool) is offered only when asked for. */
export const ALL_TOOL_NAMES = [...TOOL_NAMES, 'shell'] as const;
export type ToolName = (typeof ALL_TOOL_NAMES)[number];

/** One tool as every surface (MCP, OpenAI, Anthropic, AI SDK) describes it: the single source of truth. */
export interface ToolDefinition<Name extends ToolName = ToolName> {
  name: Name;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
}

/**
 * The tools as a manager with `settings` offers them: every limit their texts quote is the constant's or the setting's
 * in force (an operator who lowers maxBackgroundPollMs changes what write_stdin tells the model). Every surface that
 * offers the tools (MCP, OpenAI, Anthropic, AI SDK) describes them with this. Default: the default settings.
 */
export function defineTools(settings: ToolTextSettings = DEFAULT_TOOL_TEXT_SETTINGS) {
  return {
    exec_command: {
      name: 'exec_command',
      description:
        "Run a shell command and reply with what it printed. The reply comes when the command exits, when (with tty=true) it stops to wait for input, or when yield_time_ms is up, whichever is first; a command still running then keeps running in the background, and the reply's session ID lets you read more of its output or type into it with write_stdin. Set tty=true for anything you will need to type into (REPLs, prompts, interactive programs).",
      input: execCommandParams,
      output: execResultOutput,
    },
    write_stdin: {
      name: 'write_stdin',
      description:
        'Type into a session that exec_command left running, then reply with the output it produced since the last reply. Send empty chars to just wait for more output from a long-running command. Typing needs a session started with tty=true.',
      input: writeStdinParamsFor(settings),
      output: execResultOutput,
    },
    list_sessions: {
      name: 'list_sessions',
      description:
        'List the sessions still open: id, command, whether it has a terminal, pid, when it started and was last used, whether it has exited, and how much output is waiting. Use it to find session IDs you lost track of.',
      input: listSessionsParams,
      output: sessionListOutput,
    },
    close_session: {
      name: 'close_session',
      description:
        'End a session: terminate its process along with everything that process started, and forget the session ID.',
      input: closeSessionParams,
      output: closeSessionOutput,
    },
    shell: {
      name: 'shell',
      description:
        'Run one program to completion and reply with its output and exit code as JSON: {"output": "...", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}. `command` is an argv, not a command line; wrap it in ["bash", "-lc", "..."] for shell syntax. Nothing keeps running after the reply: a program still running at timeout_ms is killed with everything it started. Stdin is closed, so nothing interactive works here.',
      input: shellParams,
      output: shellResultOutput,
    },
  } as const satisfies { [Name in ToolName]: ToolDefinition<Name> };
}

/** The tools under the default settings. */
export const TOOL_DEFINITIONS = defineTools(DEFAULT_TOOL_TEXT_SETTINGS);

/**
 * The definitions of `names` (default: the four exec session tools), in that order, each once, described for a
 * manager with `settings` (default: the default settings; pass a UnifiedExecManager's `settings`).
 */
export function toolDefinitions(
  names: readonly ToolName[] = TOOL_NAMES,
  settings: ToolTextSettings = DEFAULT_TOOL_TEXT_SETTINGS,
): ToolDefinition[] {
  const definitions = defineTools(settings);
  return offeredTools(names).map((name) => definitions[name]);
}

/** `names` without repeats, checked: a caller in plain JavaScript (or a CLI flag) can name a tool that does not exist. */
export function offeredTools(names: readonly ToolName[]): ToolName[] {
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw invalidArgument(
      `Unknown tool ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the tools are ${ALL_TOOL_NAMES.join(', ')}`,
    );
  }
  return [...new Set(names)];
}

export function isToolName(name: string): name is ToolName {
  return (ALL_TOOL_NAMES as readonly string[]).includes(name);
}
