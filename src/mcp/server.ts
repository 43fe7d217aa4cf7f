import {
  McpServer,
  type CallToolResult,
  type ProgressToken,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { callTool, type ExecSessions, type ToolOutcome } from '../tools/run-tool.js';
import { TOOL_NAMES, offeredTools, toolDefinitions, type ToolDefinition, type ToolName } from '../tools/definitions.js';

export const SERVER_NAME = 'unified-exec';

const SESSION_INSTRUCTIONS =
  'exec_command runs a command and replies when it exits or its yield time is up; a command still running keeps a session ID for write_stdin (type into it or poll it) and close_session. list_sessions finds session IDs again.';
const SHELL_INSTRUCTIONS =
  'shell runs one program (an argv) to completion and replies with its output and exit code as JSON.';

/** What the server tells clients about itself: a sentence for each kind of tool it offers. */
function instructionsFor(tools: readonly ToolName[]): string {
  const parts = ['Shell access.'];
  if (tools.includes('exec_command')) parts.push(SESSION_INSTRUCTIONS);
  if (tools.includes('shell')) parts.push(SHELL_INSTRUCTIONS);
  return parts.join(' ');
}

export interface McpServerOptions {
  /** Reported to clients in `serverInfo`. */
  version?: string;
  /** The tools offered (listed, and callable). Default the four exec session tools; add 'shell' for Codex's one-shot tool. */
  tools?: readonly ToolName[];
  /**
   * Declare each tool's outputSchema and answer with `structuredContent` beside the text. Off by default: Codex CLI
   * and Claude Code show the model a result's structuredContent (as JSON) instead of its text whenever there is one,
   * and the model must read the compat text.
   */
  structuredOutput?: boolean;
  /** Add our lines about a session's state to the text (FormatOptions.stateLines). Off: the text is Codex's. */
  stateLines?: boolean;
  /**
   * Mark exec_command and write_stdin `_meta["anthropic/alwaysLoad"]`, so Claude Code loads their schemas from the
   * first turn instead of deferring them behind its tool search. Default true.
   */
  alwaysLoad?: boolean;
}

/** Claude Code never defers a tool whose `_meta` says so behind its tool search: the model sees its schema at once. */
const ALWAYS_LOAD_META = 'anthropic/alwaysLoad';
/** The tools a model needs from its first turn; the others it may look up. */
const ALWAYS_LOADED: readonly ToolName[] = ['exec_command', 'write_stdin'];

/**
 * A tool as `tools/list` gives it. The schemas are JSON Schema draft-07, `$schema` first, as clients have always read
 * them: Claude Code hands a tool's schema on to the model as it is. Arguments are checked by callTool, not against
 * these; results are checked against `outputSchema` by clients only.
 */
function listedTool(definition: ToolDefinition, structured: boolean, alwaysLoad: boolean): Tool {
  const schema = (of: z.ZodObject, io: 'input' | 'output') =>
    z.toJSONSchema(of, { target: 'draft-7', io }) as Tool['inputSchema'];
  return {
    name: definition.name,
    description: definition.description,
    inputSchema: schema(definition.input, 'input'),
    // Declared only with structured results, so clients can rely on them.
    ...(structured ? { outputSchema: schema(definition.output, 'output') } : {}),
    annotations:
      definition.name === 'list_sessions'
        ? { readOnlyHint: true, openWorldHint: false }
        : { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    // Calls are answered in the call itself, never as a task.
    execution: { taskSupport: 'forbidden' },
    ...(alwaysLoad && ALWAYS_LOADED.includes(definition.name) ? { _meta: { [ALWAYS_LOAD_META]: true } } : {}),
  };
}

/**
 * The compat text, alone unless `structured` (then the structured fields beside it, for programs); failures as tool
 * errors with text, never thrown.
 */
export function toCallToolResult(outcome: ToolOutcome, structured = false): CallToolResult {
  const content = [{ type: 'text' as const, text: outcome.text }];
  if (outcome.isError) return { content, isError: true };
  return structured ? { content, structuredContent: { ...outcome.structured } } : { content };
}

/**
 * Output deltas as `notifications/progress` for the call that sent `progressToken`: the text in `message`, `progress`
 * counting 1, 2, 3 … Sent in order without waiting (the transport keeps the order, and the reply comes after them);
 * a send that fails loses only that delta: the reply has all the output.
 */
function progressNotifier(
  progressToken: ProgressToken,
  send: (notification: ServerNotification) => Promise<void>,
): (text: string) => void {
  let progress = 0;
  return (message) => {
    progress += 1;
    send({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => undefined);
  };
}

/**
 * An MCP server with the tools of `options.tools` (default the four), bound to one manager and described with its
 * settings (`sessions.settings`). One server (and manager) per client session. A call to a tool not offered is
 * answered as a call to an unknown tool.
 */
export function createMcpServer(sessions: ExecSessions, options: McpServerOptions = {}): McpServer {
  const tools = offeredTools(options.tools ?? TOOL_NAMES);
  const structured = options.structuredOutput ?? false;
  const format = options.stateLines ? { stateLines: true } : {};
  const server = new McpServer(
    { name: SERVER_NAME, version: options.version ?? '0.0.0' },
    { instructions: instructionsFor(tools) },
  );
  // The SDK's own listing would give the schemas in its dialect (2020-12), and its keys in another order: the list
  // is ours, as clients have always read it.
  server.server.registerCapabilities({ tools: { listChanged: true } });
  // Made on the first tools/list, not with the server: zod's conversions cost a few milliseconds per client.
  let listing: Tool[] | undefined;
  server.server.setRequestHandler('tools/list', () => ({
    tools: (listing ??= toolDefinitions(tools, sessions.settings).map((definition) =>
      listedTool(definition, structured, options.alwaysLoad ?? true),
    )),
  }));
  // tools/call goes straight to callTool, the one validation path: the SDK would check arguments first and answer
  // in its own words (`MCP error -32602: Input validation error: …`) instead of Codex's `exec_command failed …`.
  // A client that sent a progressToken gets the output as progress notifications while the call waits.
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const progressToken = request.params._meta?.progressToken;
    // The signal aborts on the client's notifications/cancelled (and, under serve, when the call's connection
    // drops): the call stops waiting and its output stays for the session's next call; the SDK sends no answer.
    const options = {
      ...format,
      signal: ctx.mcpReq.signal,
      ...(progressToken === undefined ? {} : { onOutput: progressNotifier(progressToken, ctx.mcpReq.notify) }),
    };
    const outcome = await callTool(sessions, request.params.name, request.params.arguments, tools, options);
    return toCallToolResult(outcome, structured);
  });
  return server;
}
