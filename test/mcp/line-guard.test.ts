import { describe, expect, it } from 'vitest';
import { JsonRpcLineGuard, checkLine, findRequestId } from '../../src/mcp/line-guard.js';

const parsed = (line: string) => {
  const verdict = checkLine(line);
  return JSON.parse((!verdict.pass && verdict.reply) || 'null') as { id?: unknown; error?: { code: number } } | null;
};

describe('checkLine', () => {
  it('passes a JSON-RPC message on as the message it parsed', () => {
    expect(checkLine('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toEqual({
      pass: true,
      message: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(checkLine('{"jsonrpc":"2.0","method":"notifications/initialized"}\r')).toEqual({
      pass: true,
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
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

describe('checkLine on deep nesting', () => {
  it('refuses a message nested deeper than 128 levels before JSON.parse, with its id', () => {
    const deep = `{"jsonrpc":"2.0","id":7,"method":"x","params":${'['.repeat(5_000_000)}}`;
    const start = performance.now();
    expect(parsed(deep)).toMatchObject({ id: 7, error: { code: -32700 } });
    expect(performance.now() - start).toBeLessThan(2_000); // JSON.parse alone took ~4 s
    const shallow = `{"jsonrpc":"2.0","id":8,"method":"x","params":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`;
    expect(checkLine(shallow)).toMatchObject({ pass: true });
  });
});

describe('findRequestId', () => {
  const cut = (text: string) => text + 'x'.repeat(100); // the rest of a message past the kept prefix

  it('finds the id at the start of a message cut short', () => {
    expect(
      findRequestId(cut('{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"arguments":{"cmd":"echo ')),
    ).toBe(17);
  });

  it('finds the id after params when it is within the prefix', () => {
    const text = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"exec_command"},"id":17,"pad":"';
    expect(findRequestId(cut(text))).toBe(17);
  });

  it('ignores "id" keys nested inside params, and "id" text inside strings', () => {
    const nested = '{"params":{"id":5,"arguments":{"id":6,"list":[{"id":7}]}},"note":"\\"id\\":8","id":9,"x":"';
    expect(findRequestId(cut(nested))).toBe(9);
    expect(findRequestId(cut('{"params":{"id":5,"arguments":{"cmd":"'))).toBeUndefined();
    expect(findRequestId(cut('{"params":{"cmd":"}}}{{\\"},\\"id\\":3"},"id":4,"x":"'))).toBe(4);
  });

  it('reads string ids with their escapes decoded', () => {
    expect(findRequestId(cut('{"id":"req-\\"1\\"\\\\\\u00e9","method":"ping","x":"'))).toBe('req-"1"\\é');
    expect(findRequestId(cut('{ "jsonrpc" : "2.0" ,\n\t"id" : "a b" , "x":"'))).toBe('a b');
  });

  it('reads a key written with escapes as the key it spells', () => {
    expect(findRequestId(cut('{"\\u0069d":21,"x":"'))).toBe(21);
  });

  it('finds nothing when the id is missing or cut by the end of the prefix', () => {
    expect(findRequestId(cut('{"jsonrpc":"2.0","method":"tools/call","params":{"cmd":"'))).toBeUndefined();
    expect(findRequestId('{"jsonrpc":"2.0","id":17')).toBeUndefined(); // could go on as 170...
    expect(findRequestId('{"jsonrpc":"2.0","id":"ab')).toBeUndefined();
    expect(findRequestId('{"jsonrpc":"2.0","id":')).toBeUndefined();
    expect(findRequestId('')).toBeUndefined();
  });

  it('finds nothing in what is not an object', () => {
    expect(findRequestId(cut('[{"id":1},'))).toBeUndefined();
    expect(findRequestId(cut('"id":1,'))).toBeUndefined();
    expect(findRequestId(cut('{"id" 1,'))).toBeUndefined();
    expect(findRequestId(cut('{id:1,'))).toBeUndefined();
    expect(findRequestId(cut('{"\\x":1,"id":2,'))).toBeUndefined(); // an invalid escape: not JSON at all
    expect(findRequestId(cut('{"id":tru,'))).toBeUndefined();
  });

  it('hands back null, fractions and other values as they are, for the caller to refuse', () => {
    expect(findRequestId(cut('{"id":null,"x":"'))).toBeNull();
    expect(findRequestId(cut('{"id":1.5,"x":"'))).toBe(1.5);
    expect(findRequestId(cut('{"id":{"a":1},"x":"'))).toEqual({ a: 1 });
  });
});

describe('JsonRpcLineGuard', () => {
  /** What the guard handed on (each message as one line of JSON) and answered, after `chunks`. */
  function run(chunks: Buffer[], maxBytes?: number): { passed: string; replies: string[] } {
    const replies: string[] = [];
    let passed = '';
    const guard = new JsonRpcLineGuard(
      { message: (message) => (passed += `${JSON.stringify(message)}\n`), reply: (line) => replies.push(line) },
      maxBytes,
    );
    for (const chunk of chunks) guard.write(chunk);
    return { passed, replies };
  }

  it('reassembles lines split across chunks, even inside a multi-byte character', () => {
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"é"}}\n');
    const cut = line.indexOf(Buffer.from('é')) + 1;
    const { passed, replies } = run([line.subarray(0, cut), line.subarray(cut)]);
    expect(passed).toBe(line.toString());
    expect(replies).toEqual([]);
  });

  it('hands on every line of a chunk, in order, and answers the bad ones among them', () => {
    const good = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`;
    const { passed, replies } = run([Buffer.from(`${good(1)}{oops\n\n${good(2)}${good(3)}`)]);
    expect(passed).toBe(good(1) + good(2) + good(3));
    expect(replies.map((reply) => JSON.parse(reply) as unknown)).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: -32700 }) }),
    ]);
  });

  it('drops an over-long line with one error and goes on with the next', () => {
    const long = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'x'.repeat(100)}"}}\n`;
    const next = '{"jsonrpc":"2.0","id":2,"method":"ping"}\n';
    const { passed, replies } = run([Buffer.from(long.slice(0, 50)), Buffer.from(long.slice(50) + next)], 64);
    expect(passed).toBe(next);
    expect(replies).toHaveLength(1);
    expect(JSON.parse(replies[0]!)).toMatchObject({
      id: 1,
      error: { code: -32600, message: expect.stringMatching(/longer than 64 bytes/) },
    });
  });

  it('answers an over-long line with the id found in its first bytes, wherever the line was cut into chunks', () => {
    const long = Buffer.from(`{"jsonrpc":"2.0","method":"ping","id":"a\\"b","params":{"x":"${'x'.repeat(100)}"}}\n`);
    for (const chunkBytes of [1, 7, 64, long.length]) {
      const chunks = [];
      for (let at = 0; at < long.length; at += chunkBytes) chunks.push(long.subarray(at, at + chunkBytes));
      const { replies } = run(chunks, 64);
      expect(replies.map((reply) => (JSON.parse(reply) as { id?: unknown }).id)).toEqual(['a"b']);
    }
  });

  it('answers an over-long line with its id wherever it lies, and without one when it is no valid id', () => {
    const late = `{"jsonrpc":"2.0","method":"ping","params":{"x":"${'x'.repeat(100)}","id":9},"id":3}\n`;
    const fraction = `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"x":"${'x'.repeat(100)}"}}\n`;
    const { replies } = run([Buffer.from(late + fraction)], 64);
    expect(replies.map((reply) => JSON.parse(reply) as unknown)).toEqual([
      expect.objectContaining({ id: 3 }),
      expect.not.objectContaining({ id: expect.anything() }),
    ]);
  });
});
