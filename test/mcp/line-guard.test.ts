import { describe, expect, it } from 'vitest';
import { JsonRpcLineGuard, checkLine } from '../../src/mcp/line-guard.js';

const parsed = (line: string) =>
  JSON.parse(checkLine(line).reply ?? 'null') as { id?: unknown; error?: { code: number } } | null;

describe('checkLine', () => {
  it('passes a JSON-RPC message on unchanged', () => {
    expect(checkLine('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toEqual({ pass: true });
    expect(checkLine('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({ pass: true });
  });

  it('skips blank lines without a reply', () => {
    expect(checkLine('  \r')).toEqual({ pass: false });
  });

  it('answers text that is not JSON with a parse error', () => {
    expect(parsed('{not json}')).toMatchObject({ error: { code: -32700 } });
    expect(parsed('{not json}')).not.toHaveProperty('id');
  });

  it('answers JSON that is not JSON-RPC with an invalid request, keeping a usable id', () => {
    expect(parsed('{"hello":"world"}')).toMatchObject({ error: { code: -32600 } });
    expect(parsed('[]')).toMatchObject({ error: { code: -32600 } });
    expect(parsed('{"jsonrpc":"1.0","id":6,"method":"ping"}')).toMatchObject({ id: 6, error: { code: -32600 } });
    expect(parsed('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}')).not.toHaveProperty('id');
  });
});

describe('JsonRpcLineGuard', () => {
  async function run(chunks: Buffer[], maxBytes?: number): Promise<{ passed: string; replies: string[] }> {
    const replies: string[] = [];
    const guard = new JsonRpcLineGuard((line) => replies.push(line), maxBytes);
    let passed = '';
    guard.on('data', (chunk: Buffer) => (passed += chunk.toString()));
    const ended = new Promise((resolve) => guard.on('end', resolve));
    for (const chunk of chunks) guard.write(chunk);
    guard.end();
    await ended;
    return { passed, replies };
  }

  it('reassembles lines split across chunks, even inside a multi-byte character', async () => {
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"é"}}\n');
    const cut = line.indexOf(Buffer.from('é')) + 1;
    const { passed, replies } = await run([line.subarray(0, cut), line.subarray(cut)]);
    expect(passed).toBe(line.toString());
    expect(replies).toEqual([]);
  });

  it('drops an over-long line with one error and goes on with the next', async () => {
    const long = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(100)}"}}\n`;
    const next = '{"jsonrpc":"2.0","id":2,"method":"ping"}\n';
    const { passed, replies } = await run([Buffer.from(long.slice(0, 50)), Buffer.from(long.slice(50) + next)], 64);
    expect(passed).toBe(next);
    expect(replies).toHaveLength(1);
    expect(JSON.parse(replies[0]!)).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/longer than 64 bytes/) },
    });
  });
});
