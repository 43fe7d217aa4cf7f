// The real MCP SDK client on the built CLI's `mcp` over stdio, with or without elicitation (the person asked).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpTransport } from '../mcp/cli-process.js';

/** How the person behind the client answers each approval form. */
export type Answer = (request: ElicitRequest) => ElicitResult;

/**
 * `unified-exec mcp` with its defaults (workspace-write, on-request) plus `args`, in `cwd`, and an SDK client.
 * With `answer`, the client declares elicitation and answers every form with it (`asked` records the forms);
 * without, it declares none, so nobody can be asked.
 */
export async function connectApprovalClient(cwd: string, answer?: Answer, args: string[] = []) {
  const transport = mcpTransport(args, { cwd });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client(
    { name: 'sandbox-e2e', version: '1.0.0' },
    answer ? { capabilities: { elicitation: {} } } : {},
  );
  const asked: ElicitRequest[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request);
      return answer(request);
    });
  }
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
  return { client, pid: transport.pid!, stderr: () => stderr, asked, call };
}

/** A person who fills in the form with `decision` (and `reason`). */
export const decide =
  (decision: string, reason?: string): Answer =>
  () => ({
    action: 'accept',
    content: { decision, ...(reason ? { reason } : {}) },
  });

/** A person who declines every form. */
export const declineAll: Answer = () => ({ action: 'decline' });
