import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RawStdioServer } from '../reliability/raw-stdio.js';
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

  it('answers calls sent at once, each with its own result, whichever finishes first', async () => {
    const exec = (cmd: string) =>
      connection.client.callTool({ name: 'exec_command', arguments: { cmd, login: false } });
    const [slow, list, fast] = await Promise.all([
      exec('sleep 0.3; echo slow'),
      connection.client.callTool({ name: 'list_sessions', arguments: {} }),
      exec('echo fast'),
    ]);
    expect(structuredOf<{ output: string; exit_code: number }>(slow)).toMatchObject({ output: 'slow\n', exit_code: 0 });
    expect(structuredOf<{ sessions: unknown[] }>(list)).toHaveProperty('sessions');
    expect(structuredOf<{ output: string; exit_code: number }>(fast)).toMatchObject({ output: 'fast\n', exit_code: 0 });
  });

  it('reports its name and version', () => {
    expect(connection.client.getServerVersion()).toMatchObject({
      name: 'unified-exec',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});

describe('unified-exec mcp (stdio) reading its input', () => {
  let raw: RawStdioServer;
  beforeAll(async () => {
    raw = new RawStdioServer();
    await raw.initialize();
  });
  afterAll(async () => {
    await raw?.close();
  });

  it('answers every message of one write, and garbage among them with an error', async () => {
    const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'exec_command', arguments: { cmd: 'echo one-write', login: false } },
    });
    raw.send(`${ping(1)}\n{"jsonrpc":"2.0","id":2,"method"\n\n${call}\n${ping(4)}\n`);
    const replies = [await raw.next(), await raw.next(), await raw.next(), await raw.next()];
    // Answers go out as each is ready (the error at once, the command when it exits), not in the order asked.
    const byWhat = new Map(replies.map((reply) => [reply.error?.code ?? reply.id, reply]));
    expect([...byWhat.keys()].sort()).toEqual([-32700, 1, 3, 4].sort());
    expect(byWhat.get(3)?.result?.structuredContent).toMatchObject({ output: 'one-write\n', exit_code: 0 });
  });

  it('reads a message written in pieces, split inside a character, as one', async () => {
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: { _meta: { é: 1 } } })}\n`,
    );
    const cut = line.indexOf(Buffer.from('é')) + 1;
    raw.send(line.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    raw.send(line.subarray(cut));
    expect(await raw.next()).toMatchObject({ id: 5, result: {} });
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
