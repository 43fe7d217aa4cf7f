// The real MCP SDK client on the built CLI's `mcp` over stdio, with or without elicitation (the person asked).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { cleanEnv, mcpTransport } from '../mcp/cli-process.js';
import { nodeAsNobody } from './nobody.js';

/** How the person behind the client answers each approval form. */
export type Answer = (request: ElicitRequest) => ElicitResult;

/** Who runs the server, and what it is started with beside the test's environment. */
export interface ServerStart {
  /** root (the test's user, default) or nobody (uid 65534: see helpers/nobody.ts; HOME is then /nonexistent). */
  user?: 'root' | 'nobody';
  env?: Record<string, string>;
}

/**
 * `unified-exec mcp` with its defaults (workspace-write, on-request) plus `args`, in `cwd`, and an SDK client.
 * With `answer`, the client declares elicitation and answers every form with it (`asked` records the forms);
 * without, it declares none, so nobody can be asked.
 */
export async function connectApprovalClient(
  cwd: string,
  answer?: Answer,
  args: string[] = [],
  start: ServerStart = {},
) {
  const transport =
    start.user === 'nobody'
      ? new StdioClientTransport({
          ...nodeAsNobody('dist/cli/index.js', ['mcp', ...args]),
          cwd,
          env: cleanEnv({ HOME: '/nonexistent', ...start.env }) as Record<string, string>,
          stderr: 'pipe',
        })
      : mcpTransport(args, { cwd, ...(start.env ? { env: start.env } : {}) });
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

/** The text of an approval form the client was shown. */
export const formText = (request: ElicitRequest) => (request.params as { message: string }).message;

/** A person who fills in the form with `decision` (and `reason`). */
export const decide =
  (decision: string, reason?: string): Answer =>
  () => ({
    action: 'accept',
    content: { decision, ...(reason ? { reason } : {}) },
  });

/** A person who declines every form. */
export const declineAll: Answer = () => ({ action: 'decline' });
