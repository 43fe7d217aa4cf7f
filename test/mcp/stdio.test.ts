import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAlive, mcpTransport, unsandboxed } from './cli-process.js';
import { defineClientScenarios, structuredOf } from './client-scenarios.js';

async function connect(): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = mcpTransport(unsandboxed([]));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('unified-exec mcp (stdio) with the SDK client', () => {
  let connection: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    connection = await connect();
  });
  afterAll(async () => {
    await connection?.client.close();
  });

  defineClientScenarios(() => connection.client);

  it('reports its name and version', () => {
    expect(connection.client.getServerVersion()).toMatchObject({
      name: 'unified-exec',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});

describe('unified-exec mcp (stdio) lifetime', () => {
  it('ends its sessions when the client disconnects', async () => {
    const { client, transport } = await connect();
    const serverPid = transport.pid!;
    const started = await client.callTool({
      name: 'exec_command',
      arguments: { cmd: 'sleep 600', yield_time_ms: 250 },
    });
    const { session_id: sessionId } = structuredOf<{ session_id: number }>(started);
    const { sessions } = structuredOf<{ sessions: Array<{ session_id: number; pid: number }> }>(
      await client.callTool({ name: 'list_sessions', arguments: {} }),
    );
    const pid = sessions.find((s) => s.session_id === sessionId)!.pid;
    expect(isAlive(pid)).toBe(true);

    await client.close();
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000 });
    await vi.waitFor(() => expect(isAlive(serverPid)).toBe(false), { timeout: 10_000 });
  });
});
