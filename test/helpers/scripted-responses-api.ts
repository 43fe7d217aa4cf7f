// A scripted model behind a local stand-in for the OpenAI Responses API (non-streaming `POST /responses`), for SDKs
// that call it themselves (the Agents SDK's runner). Each step reads the tool outputs so far and makes the next call;
// when the steps run out the model answers "done".
import { startFakeModelServer, sendJson, type FakeModelServer } from '../clients/fake-model-server.js';

/** What one step of the script asks for: a function call, by the tool's name and its arguments. */
interface ScriptedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** A step: the call to make, given the outputs the earlier calls got back (in order). */
export type ScriptStep = (outputs: readonly string[]) => ScriptedCall;

export interface ScriptedResponsesApi extends FakeModelServer {
  /** Each call's output, as the SDK handed it back to the model (`function_call_output.output`). */
  readonly outputs: string[];
  /** The names of the tools the first request offered. */
  readonly offered: () => string[];
}

type Item = Record<string, unknown>;

const callId = (index: number) => `call_step_${index}`;

/** The text of a `function_call_output` item's output (a string, or content parts with text). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: Item) => String(part.text ?? '')).join('');
  return JSON.stringify(output);
}

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
      if (item.type === 'function_call_output' && item.call_id === callId(outputs.length)) {
        outputs.push(outputText(item.output));
      }
    }
    const step = steps[outputs.length];
    const id = `resp_${++responses}`;
    const item: Item = step
      ? (({ name, args }) => ({
          type: 'function_call',
          id: `fc_${responses}`,
          call_id: callId(outputs.length),
          name,
          arguments: JSON.stringify(args),
          status: 'completed',
        }))(step(outputs))
      : {
          type: 'message',
          id: `msg_${responses}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'done', annotations: [] }],
        };
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
