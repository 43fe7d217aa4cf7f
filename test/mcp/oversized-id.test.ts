import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../src/mcp/line-guard.js';
import { RawStdioServer } from '../reliability/raw-stdio.js';

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
    expect(line.length).toBeGreaterThan(MAX_MESSAGE_BYTES);
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

  it('leaves the connection serving the next call', async () => {
    expect(await server.request(18, 'ping')).toMatchObject({ id: 18, result: {} });
  });
});
