// A scripted model behind a local stand-in for the OpenAI Responses API (non-streaming `POST /responses`), for SDKs
// that call it themselves (the Agents SDK's runner). Each step reads the tool outputs so far and makes the next call;
// when the steps run out the model answers "done".
import { startFakeModelServer, sendJson, type FakeModelServer } from '../clients/fake-model-server.js';

/**
 * What one step of the script asks for: a function call, by the tool's name and its arguments; or an edit with the
 * hosted apply_patch tool (`operation`: `{ type: 'create_file', path, diff }`, ...).
 */
type ScriptedCall =
  { readonly name: string; readonly args: Record<string, unknown> } | { readonly patch: Record<string, unknown> };

/** A step: the call to make, given the outputs the earlier calls got back (in order). */
export type ScriptStep = (outputs: readonly string[]) => ScriptedCall;

export interface ScriptedResponsesApi extends FakeModelServer {
  /** Each call's output, as the SDK handed it back to the model (`function_call_output.output`, or an edit's). */
  readonly outputs: string[];
  /** The names of the tools the first request offered. */
  readonly offered: () => string[];
}

type Item = Record<string, unknown>;

const callId = (index: number) => `call_step_${index}`;

/** The text of an output item's output (a string, content parts with text, or none: ''). */
function outputText(output: unknown): string {
  if (output === undefined) return '';
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: Item) => String(part.text ?? '')).join('');
  return JSON.stringify(output);
}

/** The output item that makes `call`. */
function callItem(call: ScriptedCall, call_id: string, response: number): Item {
  if ('patch' in call) {
    return { type: 'apply_patch_call', id: `apc_${response}`, call_id, operation: call.patch, status: 'completed' };
  }
  const { name, args } = call;
  return {
    type: 'function_call',
    id: `fc_${response}`,
    call_id,
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/** The model's last word: "done". */
const answer = (response: number): Item => ({
  type: 'message',
  id: `msg_${response}`,
  role: 'assistant',
  status: 'completed',
  content: [{ type: 'output_text', text: 'done', annotations: [] }],
});

/** Starts the stand-in on 127.0.0.1; point the SDK's OpenAI client at `${url}/v1`. */
export async function startScriptedResponsesApi(steps: readonly ScriptStep[]): Promise<ScriptedResponsesApi> {
  const outputs: string[] = [];
  let responses = 0;
  const server = await startFakeModelServer((request, res) => {
    if (request.method !== 'POST' || !request.path.endsWith('/responses') || !request.body) {
      return sendJson(res, 404, { error: { message: `not faked: ${request.method} ${request.path}` } });
    }
    // Each request carries the whole conversation: record the outputs not seen yet, in script order.
    for (const item of (request.body.input ?? []) as Item[]) {
      const output = item.type === 'function_call_output' || item.type === 'apply_patch_call_output';
      if (output && item.call_id === callId(outputs.length)) {
        outputs.push(outputText(item.output));
      }
    }
    const step = steps[outputs.length];
    const id = `resp_${++responses}`;
    const item: Item = step ? callItem(step(outputs), callId(outputs.length), responses) : answer(responses);
    const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    sendJson(res, 200, { id, object: 'response', status: 'completed', model: 'scripted', output: [item], usage });
  });
  return {
    ...server,
    outputs,
    offered: () => {
      const tools = (server.requests[0]?.body?.tools ?? []) as Item[];
      return tools.map((tool) => String(tool.name ?? tool.type));
    },
  };
}
