import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_MAX_MESSAGE_BYTES } from '../../src/mcp/line-guard.js';
import { RawStdioServer } from '../reliability/raw-stdio.js';
import { mcpTransport, unsandboxed } from './cli-process.js';

const OVERSIZED_BYTES = 11 * 1024 * 1024;

describe('an oversized message to the MCP stdio server', () => {
  let server: RawStdioServer;

  beforeAll(async () => {
    server = new RawStdioServer();
    await server.initialize();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is answered with an error carrying its id, so the caller does not wait for its own timeout', async () => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      id: 17,
      method: 'tools/call',
      params: { name: 'exec_command', arguments: { cmd: `echo ${'x'.repeat(OVERSIZED_BYTES)}`, login: false } },
    });
    expect(line.length).toBeGreaterThan(MCP_MAX_MESSAGE_BYTES);
    const reply = await server.exchange(line);
    expect(reply).toMatchObject({ id: 17, error: { code: -32600, message: expect.stringMatching(/longer than/) } });
  });

  it('is answered with its id when the id comes after params, ignoring ids nested in them', async () => {
    const line =
      '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"exec_command","arguments":{"login":false,"id":5}},' +
      `"id":"late-\\"17\\"","_pad":"${'x'.repeat(OVERSIZED_BYTES)}"}`;
    const reply = await server.exchange(line);
    expect(reply).toMatchObject({ id: 'late-"17"', error: { code: -32600 } });
  });

  it.each([
    ['a number', 23],
    ['a string', 'call-"23"'],
  ])('is answered with its id written last, as %s, past nested "id" keys and strings holding "id":', async (_, id) => {
    // The shape the SDK's client writes: {jsonrpc, method, params, id}, the 11 MiB inside params.
    const params = {
      name: 'exec_command',
      arguments: { id: 5, cmd: `echo '"id":6, {"id":7}' ${'x'.repeat(OVERSIZED_BYTES)}`, meta: [{ id: 8 }] },
    };
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params, id });
    expect(line.indexOf('"id":')).toBeLessThan(200);
    expect(line.lastIndexOf(`"id":${JSON.stringify(id)}`)).toBeGreaterThan(MCP_MAX_MESSAGE_BYTES);
    const reply = await server.exchange(line);
    expect(reply).toMatchObject({ id, error: { code: -32600, message: expect.stringMatching(/longer than/) } });
  });

  it('leaves the connection serving the next call', async () => {
    expect(await server.request(18, 'ping')).toMatchObject({ id: 18, result: {} });
  });
});

describe('an oversized call from the MCP SDK client', () => {
  it("fails at once with the server's error, not at the client's own timeout", async () => {
    const client = new Client({ name: 'oversized-test', version: '1.0.0' });
    await client.connect(mcpTransport(unsandboxed([])));
    try {
      const started = performance.now();
      const call = client.callTool(
        { name: 'exec_command', arguments: { cmd: `echo ${'x'.repeat(OVERSIZED_BYTES)}`, login: false } },
        undefined,
        { timeout: 20_000 },
      );
      await expect(call).rejects.toMatchObject({ code: -32600, message: expect.stringMatching(/longer than/) });
      expect(performance.now() - started).toBeLessThan(10_000);
      // And the connection serves the next call.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 30_000);
});
