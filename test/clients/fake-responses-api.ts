// A fake OpenAI Responses API for Codex CLI. Codex defers MCP tools behind its client-run `tool_search`: the model
// searches first, Codex answers with the server's tools as a namespace, then the model calls them by namespace.
import { type RecordedResult, scriptCall } from './model-script.js';
import { type FakeModelServer, sendEvents, sendJson, startFakeModelServer } from './fake-model-server.js';

const SEARCH_CALL_ID = 'call_search_0';
const callId = (index: number) => `call_script_${index}`;

export interface FakeResponsesApi extends FakeModelServer {
  /** Each script call's result, as Codex put it in `function_call_output.output`. */
  readonly results: RecordedResult[];
  /** The names of the tools each request offered the model directly, by request. */
  readonly offered: string[][];
  /** What Codex answered the tool search with (`tool_search_output.tools`), once it did. */
  readonly searched: unknown;
}

type Item = Record<string, unknown>;

/** Starts the fake on 127.0.0.1; it plays the script to `namespace` (e.g. mcp__unified_exec), then says done. */
export async function startFakeResponsesApi(namespace: string): Promise<FakeResponsesApi> {
  const results: RecordedResult[] = [];
  const offered: string[][] = [];
  let searched: unknown;
  let responses = 0;
  const server = await startFakeModelServer((request, res) => {
    if (request.method === 'GET' && request.path.endsWith('/models'))
      return sendJson(res, 200, { data: [], models: [] });
    if (request.method !== 'POST' || !request.path.endsWith('/responses') || !request.body) {
      return sendJson(res, 404, { error: { message: `not faked: ${request.method} ${request.path}` } });
    }
    const input = (Array.isArray(request.body.input) ? request.body.input : []) as Item[];
    const tools = (Array.isArray(request.body.tools) ? request.body.tools : []) as Item[];
    offered.push(tools.map((tool) => String(tool.name ?? tool.type)));
    // Each request carries the whole conversation: record results not seen yet, in script order.
    for (const item of input) {
      const index = Number(/^call_script_(\d+)$/.exec(String(item.call_id))?.[1] ?? NaN);
      if (item.type !== 'function_call_output' || Number.isNaN(index) || results.length !== index) continue;
      const call = scriptCall(index, results);
      if (call) results.push({ call, content: item.output });
    }
    const search = input.find((item) => item.type === 'tool_search_output' && item.call_id === SEARCH_CALL_ID);
    searched ??= search?.tools;
    const next = search ? scriptCall(results.length, results) : undefined;
    let item: Item;
    if (!search) {
      item = {
        type: 'tool_search_call',
        call_id: SEARCH_CALL_ID,
        status: 'completed',
        execution: 'client',
        arguments: { query: 'run a shell command and type into it', limit: 10 },
      };
    } else if (next) {
      const call_id = callId(results.length);
      item = { type: 'function_call', call_id, namespace, name: next.name, arguments: JSON.stringify(next.args) };
    } else {
      item = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] };
    }
    const id = `resp_${++responses}`;
    const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    sendEvents(res, [
      { type: 'response.created', response: { id } } as { type: string },
      { type: 'response.output_item.done', item } as { type: string },
      { type: 'response.completed', response: { id, usage } } as { type: string },
    ]);
  });
  return {
    ...server,
    results,
    offered,
    get searched() {
      return searched;
    },
  };
}
