import { describe, expect, it } from 'vitest';
import { JsonLineFramer } from '../../src/util/json-lines.js';

type Event = { line: string } | { oversized: unknown };

/** What the framer handed on after `chunks`, in order: each line as text, each over-long line as its id. */
function frame(chunks: (string | Buffer)[], maxLineBytes = 1024): Event[] {
  const events: Event[] = [];
  const framer = new JsonLineFramer(
    {
      line: (bytes) => events.push({ line: bytes.toString('utf8') }),
      oversized: (id) => events.push({ oversized: id }),
    },
    maxLineBytes,
  );
  for (const chunk of chunks) framer.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return events;
}

/** `text` cut into pieces of `size` bytes. */
function pieces(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

describe('JsonLineFramer', () => {
  it('hands on every line of a chunk in order, without its newline, a carriage return and blank lines kept', () => {
    expect(frame(['{"id":1}\n{"id":2}\r\n\n{"id":3}\n'])).toEqual([
      { line: '{"id":1}' },
      { line: '{"id":2}\r' },
      { line: '' },
      { line: '{"id":3}' },
    ]);
  });

  it('keeps the bytes after the last newline until a later write ends their line', () => {
    const events: Event[] = [];
    const framer = new JsonLineFramer({ line: (b) => events.push({ line: b.toString() }), oversized: () => {} }, 64);
    framer.write(Buffer.from('{"id":1}\n{"id"'));
    expect(events).toEqual([{ line: '{"id":1}' }]);
    framer.write(Buffer.from(':2'));
    expect(events).toHaveLength(1);
    framer.write(Buffer.from('}\n'));
    expect(events).toEqual([{ line: '{"id":1}' }, { line: '{"id":2}' }]);
  });

  it('reassembles a line cut anywhere, even inside a multi-byte character', () => {
    const text = '{"id":"é€😀","x":"ü"}\n';
    for (const size of [1, 2, 3, 5, text.length]) {
      expect(frame(pieces(text, size))).toEqual([{ line: text.slice(0, -1) }]);
    }
  });

  it('takes a line of exactly the limit and refuses one byte more, its newline not counted', () => {
    const line = (bytes: number) => `{"id":1,"x":"${'x'.repeat(bytes - 15)}"}`;
    expect(line(64)).toHaveLength(64);
    expect(frame([`${line(64)}\n`], 64)).toEqual([{ line: line(64) }]);
    expect(frame([`${line(64)}\r\n`], 64)).toEqual([{ oversized: 1 }]);
    expect(frame([`${line(65)}\n`], 64)).toEqual([{ oversized: 1 }]);
  });

  it('applies the limit to each line, not to a chunk', () => {
    const line = '{"id":1,"x":"abcdefghij"}';
    const events = frame([`${line}\n`.repeat(10)], 32);
    expect(events).toEqual(Array.from({ length: 10 }, () => ({ line })));
  });

  it('reports an over-long line once, at its newline, with its top-level id wherever it lies, and goes on', () => {
    const late = `{"params":{"id":7,"a":[{"id":8}],"s":"\\"id\\":9","pad":"${'x'.repeat(200)}"},"id":"w-4"}`;
    const text = `${late}\n{"id":2}\n`;
    for (const size of [1, 7, 64, text.length]) {
      expect(frame(pieces(text, size), 64)).toEqual([{ oversized: 'w-4' }, { line: '{"id":2}' }]);
    }
  });

  it('reports an over-long line without an id, or not yet ended, as such', () => {
    const pad = 'x'.repeat(100);
    expect(frame([`{"method":"m","params":"${pad}"}\n`], 64)).toEqual([{ oversized: undefined }]);
    expect(frame([`["${pad}"]\n`], 64)).toEqual([{ oversized: undefined }]);
    expect(frame([`{"id":3,"params":"${pad}`], 64)).toEqual([]);
  });

  it('keeps none of an over-long line: the line after it holds only its own bytes', () => {
    const events = frame([`{"id":1,"pad":"${'x'.repeat(100)}`, `${'y'.repeat(100)}"}\n{"id":2`, '}\n'], 64);
    expect(events).toEqual([{ oversized: 1 }, { line: '{"id":2}' }]);
  });
});
