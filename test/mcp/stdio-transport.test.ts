import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startStdioServer, type RunningStdioServer } from '../../src/mcp/stdio.js';
import { StdioLineTransport } from '../../src/mcp/stdio-transport.js';

/** Every line written to `output`, parsed, as it comes; `next()` waits for the next one. */
function lineReader(output: PassThrough): { next(): Promise<JSONRPCMessage> } {
  const lines: string[] = [];
  let pending = '';
  let wake: (() => void) | undefined;
  output.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      lines.push(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
    wake?.();
  });
  return {
    async next() {
      await vi.waitFor(() => expect(lines.length).toBeGreaterThan(0), { timeout: 10_000, interval: 5 });
      return JSON.parse(lines.shift()!) as JSONRPCMessage;
    },
  };
}

describe('StdioLineTransport', () => {
  function started(): { input: PassThrough; output: PassThrough; transport: StdioLineTransport; got: unknown[] } {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StdioLineTransport(input, output);
    const got: unknown[] = [];
    transport.onmessage = (message) => got.push(message);
    void transport.start();
    return { input, output, transport, got };
  }

  it('hands each message of a chunk to the server in that same turn, in order', () => {
    const { input, got } = started();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    expect(got).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('answers a line that is not JSON-RPC itself and goes on with the next', async () => {
    const { input, output, got } = started();
    const replies = lineReader(output);
    input.write('{"jsonrpc":"2.0","id":7,"method":"ping"\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    expect(await replies.next()).toMatchObject({ error: { code: -32700 } });
    expect(got).toEqual([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
  });

  it('writes each message sent as one line of JSON', async () => {
    const { output, transport } = started();
    const replies = lineReader(output);
    await transport.send({ jsonrpc: '2.0', id: 3, result: { text: 'a\nb' } });
    expect(await replies.next()).toEqual({ jsonrpc: '2.0', id: 3, result: { text: 'a\nb' } });
  });

  // A client that closed its end of stdout: the writes fail with EPIPE and the stream never drains. Before, the send
  // never resolved, and every shutdown waited out its grace for the answer (4 s).
  it('finishes a send on an output whose reader is gone, and every send after it', async () => {
    const output = new Writable({
      highWaterMark: 1,
      write: (_chunk, _encoding, callback) =>
        setImmediate(() => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))),
    });
    output.on('error', () => undefined); // as the CLI listens
    const transport = new StdioLineTransport(new PassThrough(), output);
    await transport.start();
    await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(output.errored).toMatchObject({ code: 'EPIPE' });
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
  }, 5_000);

  it('reports a handler that throws and still reads the next line', () => {
    const { input, transport } = started();
    const errors: Error[] = [];
    const got: unknown[] = [];
    transport.onerror = (error) => errors.push(error);
    transport.onmessage = (message) => {
      if ('id' in message && message.id === 1) throw new Error('handler failed');
      got.push(message);
    };
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(errors.map((e) => e.message)).toEqual(['handler failed']);
    expect(got).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('reads nothing more once closed, and says it closed', async () => {
    const { input, transport, got } = started();
    const closed = vi.fn();
    transport.onclose = closed;
    await transport.close();
    input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(got).toEqual([]);
    expect(closed).toHaveBeenCalledOnce();
  });
});

describe('startStdioServer', () => {
  let server: RunningStdioServer | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await server?.close();
    server = undefined;
  });

  // Each parse and schema check of a line runs on the path of every call; the SDK's transport behind the guard
  // read every line a second time.
  it('parses each line of input once on its way to the tool', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const replies = lineReader(output);
    server = await startStdioServer({ input, output, managerOptions: { sandbox: 'danger-full-access' } });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
    });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'list_sessions', arguments: {} },
    });
    const parse = vi.spyOn(JSON, 'parse');
    input.write(`${initialize}\n`);
    expect(await replies.next()).toMatchObject({ id: 1, result: { serverInfo: { name: 'unified-exec' } } });
    input.write(`${call}\n`);
    expect(await replies.next()).toMatchObject({ id: 2, result: { content: [{ text: 'No sessions are open.' }] } });
    const parsesOf = (line: string) => parse.mock.calls.filter(([text]) => text === line).length;
    expect([parsesOf(initialize), parsesOf(call)]).toEqual([1, 1]);
  });
});
