import { describe, expect, it } from 'vitest';
import { MAX_ID_BYTES, TopLevelIdScanner, scanTopLevelId } from '../../src/util/json-id-scanner.js';

/** Feeds `text` one byte at a time: no state may depend on where the pieces were cut. */
function byteByByte(text: string): unknown {
  const scanner = new TopLevelIdScanner();
  for (const byte of Buffer.from(text)) scanner.feed(Uint8Array.of(byte));
  return scanner.id;
}

describe('TopLevelIdScanner', () => {
  it('finds the id last, after big params, as the MCP SDK client writes it', () => {
    const text = `{"jsonrpc":"2.0","method":"tools/call","params":{"cmd":"${'x'.repeat(100_000)}"},"id":42}`;
    expect(scanTopLevelId(text)).toBe(42);
    expect(byteByByte(text)).toBe(42);
  });

  it('takes no "id" key nested in params or arrays, nor "id": inside strings', () => {
    const text =
      '{"params":{"id":1,"a":[{"id":2}],"s":"\\"id\\":3 }]} {\\\\"},"note":"\\"id\\":4","list":[{"id":5}],"id":"top"}';
    expect(JSON.parse(text)).toMatchObject({ id: 'top' });
    expect(scanTopLevelId(text)).toBe('top');
    expect(byteByByte(text)).toBe('top');
  });

  it('reads numeric and string ids, escapes decoded, across multi-byte characters', () => {
    expect(scanTopLevelId('{"x":"é€😀","id":-7e2}')).toBe(-700);
    expect(scanTopLevelId('{"x":"é€😀","id":"r\\u00e9q-\\"1\\""}')).toBe('réq-"1"');
    expect(byteByByte('{"x":"é€😀", "id" : "€" }')).toBe('€');
  });

  it('finds nothing in what is not an object, is malformed, or ends before the id does', () => {
    for (const text of ['[{"id":1}]', '"id":1', '{"id" 1}', '{id:1}', '{"\\x":1,"id":2}', '{"id":tru}', '{"id":17']) {
      expect(scanTopLevelId(text)).toBeUndefined();
    }
  });

  it('gives up on an id value longer than any real id, without keeping it', () => {
    const scanner = new TopLevelIdScanner();
    scanner.feed(Buffer.from(`{"id":"${'y'.repeat(MAX_ID_BYTES + 1)}`));
    expect(scanner.done).toBe(true);
    expect(scanner.id).toBeUndefined();
  });
});
