import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  type ProgressToken,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { callTool, type ExecSessions, type ToolOutcome } from '../tools/run-tool.js';
import { TOOL_NAMES, offeredTools, toolDefinitions, type ToolName } from '../tools/definitions.js';

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
}

/**
 * The SDK's JSON Schema validator (it checks a client's answer to an elicitation: here, an approval form), made on its
 * first use rather than with the server: making one compiles ajv's meta-schemas, which stood before the first answers.
 */
function validatorOnFirstUse(): jsonSchemaValidator {
  let made: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      return (made ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
    },
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
    { instructions: instructionsFor(tools), jsonSchemaValidator: validatorOnFirstUse() },
  );
  for (const definition of toolDefinitions(tools, sessions.settings)) {
    server.registerTool(
      definition.name,
      {
        description: definition.description,
        inputSchema: definition.input,
        // Declared only with structured results, so clients can rely on them; the SDK checks each result against it.
        ...(structured ? { outputSchema: definition.output } : {}),
        annotations:
          definition.name === 'list_sessions'
            ? { readOnlyHint: true, openWorldHint: false }
            : { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
      },
      async (args: unknown) =>
        toCallToolResult(await callTool(sessions, definition.name, args, tools, format), structured),
    );
  }
  // tools/call goes straight to callTool, the one validation path: the SDK would check arguments first and answer
  // in its own words (`MCP error -32602: Input validation error: …`) instead of Codex's `exec_command failed …`.
  // A client that sent a progressToken gets the output as progress notifications while the call waits.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    // extra.signal aborts on the client's notifications/cancelled (and, under serve, when the call's connection
    // drops): the call stops waiting and its output stays for the session's next call; the SDK sends no answer.
    const options = {
      ...format,
      signal: extra.signal,
      ...(progressToken === undefined ? {} : { onOutput: progressNotifier(progressToken, extra.sendNotification) }),
    };
    const outcome = await callTool(sessions, request.params.name, request.params.arguments, tools, options);
    return toCallToolResult(outcome, structured);
  });
  return server;
}
