// A fake Anthropic Messages API for Claude Code (ANTHROPIC_BASE_URL). Claude Code defers MCP tools behind its
// ToolSearch tool unless they ask to be loaded: the model selects deferred ones by name first, then calls them. Requests without tools are Claude Code's
// side calls (titles, summaries): they get a short answer and do not move the script on.
import type { ServerResponse } from 'node:http';
import { type RecordedResult, scriptCall } from './model-script.js';
import { type FakeModelServer, sendEvents, sendJson, startFakeModelServer } from './fake-model-server.js';

const SEARCH_ID = 'toolu_search_0';
const toolUseId = (index: number) => `toolu_script_${index}`;

export interface FakeMessagesApi extends FakeModelServer {
  /** Each script call's result, as Claude Code put it in the `tool_result` block's `content`. */
  readonly results: RecordedResult[];
  /** The names of the tools each request that offered any offered the model directly, by request. */
  readonly offered: string[][];
  /** What Claude Code answered the ToolSearch call with (the `tool_result` content), once it did. */
  readonly searched: unknown;
  /** The server's tools as the model was given them (name, description, input_schema), each as first offered. */
  readonly loaded: Block[];
}

type Block = Record<string, unknown>;
type Reply = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

function reply(res: ServerResponse, stream: boolean, model: unknown, block: Reply): void {
  const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model, stop_sequence: null, usage };
  if (!stream) return sendJson(res, 200, { ...message, content: [block], stop_reason: stopReason });
  const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
      : { type: 'text_delta', text: block.text };
  sendEvents(res, [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
    { type: 'content_block_start', index: 0, content_block: start },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  ] as { type: string }[]);
}

/** Starts the fake on 127.0.0.1; it plays the script to the MCP server `server` (its tools mcp__SERVER__…). */
export async function startFakeMessagesApi(server: string): Promise<FakeMessagesApi> {
  const results: RecordedResult[] = [];
  const offered: string[][] = [];
  let searched: unknown;
  const loaded = new Map<string, Block>();
  const toolName = (name: string) => `mcp__${server}__${name}`;
  const fake = await startFakeModelServer((request, res) => {
    const body = request.body;
    if (request.method !== 'POST' || !body) return sendJson(res, 200, {});
    if (request.path.endsWith('/count_tokens')) return sendJson(res, 200, { input_tokens: 1 });
    if (!request.path.endsWith('/messages')) return sendJson(res, 404, { error: { message: 'not faked' } });
    const stream = body.stream === true;
    const tools = Array.isArray(body.tools) ? (body.tools as Block[]) : [];
    if (tools.length === 0) return reply(res, stream, body.model, { type: 'text', text: 'ok' });
    offered.push(tools.map((tool) => String(tool.name)));
    for (const tool of tools)
      if (String(tool.name).startsWith(toolName('')) && !loaded.has(String(tool.name)))
        loaded.set(String(tool.name), tool);
    const blocks = ((body.messages ?? []) as { content: unknown }[]).flatMap((message) =>
      Array.isArray(message.content) ? (message.content as Block[]) : [],
    );
    for (const block of blocks) {
      const index = Number(/^toolu_script_(\d+)$/.exec(String(block.tool_use_id))?.[1] ?? NaN);
      if (block.type !== 'tool_result' || Number.isNaN(index) || results.length !== index) continue;
      const call = scriptCall(index, results);
      if (call) results.push({ call, content: block.content });
    }
    const search = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === SEARCH_ID);
    searched ??= search?.content;
    // Tools loaded from the first turn need no search: the model calls them at once.
    const loadedNow = tools.some((tool) => tool.name === toolName('exec_command'));
    const next = search || loadedNow ? scriptCall(results.length, results) : undefined;
    if (!search && !loadedNow) {
      const query = `select:${toolName('exec_command')},${toolName('write_stdin')}`;
      return reply(res, stream, body.model, {
        type: 'tool_use',
        id: SEARCH_ID,
        name: 'ToolSearch',
        input: { query, max_results: 5 },
      });
    }
    if (!next) return reply(res, stream, body.model, { type: 'text', text: 'done' });
    const id = toolUseId(results.length);
    reply(res, stream, body.model, { type: 'tool_use', id, name: toolName(next.name), input: next.args });
  });
  return {
    ...fake,
    results,
    offered,
    get searched() {
      return searched;
    },
    get loaded() {
      return [...loaded.values()];
    },
  };
}
