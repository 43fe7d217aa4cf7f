import { describe, it, expect } from 'vitest';
import { Utf8StreamDecoder, decodeDrained } from '../../src/buffer/utf8-decoder.js';
import { HeadTailBuffer } from '../../src/buffer/head-tail-buffer.js';

const REPLACEMENT = '\uFFFD';

/** Decodes `bytes` split at the given offsets, then flushes. */
function decodeSplit(bytes: Buffer, cuts: number[]): string {
  const decoder = new Utf8StreamDecoder();
  let out = '';
  let previous = 0;
  for (const cut of [...cuts, bytes.length]) {
    out += decoder.write(bytes.subarray(previous, cut));
    previous = cut;
  }
  return out + decoder.end();
}

describe('Utf8StreamDecoder', () => {
  it('decodes plain ASCII unchanged', () => {
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from('hello '))).toBe('hello ');
    expect(decoder.write(Buffer.from('world'))).toBe('world');
    expect(decoder.end()).toBe('');
  });

  it('decodes a 4-byte emoji split at every possible chunk boundary', () => {
    const text = 'a😀b';
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decodeSplit(bytes, [cut])).toBe(text);
    }
  });

  it('decodes a 3-byte character split at every possible chunk boundary', () => {
    const text = 'x€y';
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(decodeSplit(bytes, [cut])).toBe(text);
    }
  });

  it('decodes multi-byte characters fed one byte at a time', () => {
    const text = 'é€😀ü';
    const bytes = Buffer.from(text);
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    expect(decodeSplit(bytes, cuts)).toBe(text);
  });

  it('holds an incomplete trailing sequence until the next write', () => {
    const decoder = new Utf8StreamDecoder();
    const bytes = Buffer.from('😀');
    expect(decoder.write(bytes.subarray(0, 2))).toBe('');
    expect(decoder.write(bytes.subarray(2))).toBe('😀');
  });

  it('turns an invalid 0xff byte into U+FFFD', () => {
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from([0x61, 0xff, 0x62])) + decoder.end()).toBe(`a${REPLACEMENT}b`);
  });

  it('turns a lone continuation byte into U+FFFD', () => {
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from([0x61, 0x80, 0x62])) + decoder.end()).toBe(`a${REPLACEMENT}b`);
  });

  it('flushes an incomplete sequence as U+FFFD on end', () => {
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from([0x61, 0xf0, 0x9f]))).toBe('a');
    expect(decoder.end()).toBe(REPLACEMENT);
  });

  it('starts a fresh stream after end', () => {
    const decoder = new Utf8StreamDecoder();
    decoder.write(Buffer.from([0xe2, 0x82]));
    decoder.end();
    expect(decoder.write(Buffer.from('ok'))).toBe('ok');
  });

  it('keeps a byte order mark instead of stripping it', () => {
    const decoder = new Utf8StreamDecoder();
    expect(decoder.write(Buffer.from('\uFEFFhi'))).toBe('\uFEFFhi');
  });
});

describe('decodeDrained', () => {
  it('decodes a character split across two drains when nothing was omitted', () => {
    const decoder = new Utf8StreamDecoder();
    const buffer = new HeadTailBuffer(100);
    const bytes = Buffer.from('a€b');
    buffer.push(bytes.subarray(0, 2));
    const first = decodeDrained(decoder, buffer.drain());
    buffer.push(bytes.subarray(2));
    const second = decodeDrained(decoder, buffer.drain());
    expect(first).toBe('a');
    expect(second).toBe('€b');
  });

  it('decodes a character split between head and tail when nothing was omitted', () => {
    const decoder = new Utf8StreamDecoder();
    const bytes = Buffer.from('ab😀cd');
    const drained = { head: bytes.subarray(0, 4), tail: bytes.subarray(4), omittedBytes: 0 };
    expect(decodeDrained(decoder, drained)).toBe('ab😀cd');
  });

  it('turns characters cut at the gap into U+FFFD when bytes were omitted', () => {
    const decoder = new Utf8StreamDecoder();
    // Head budget 3 and tail budget 3 cut both euro signs (3 bytes each) in the middle.
    const buffer = new HeadTailBuffer(6);
    buffer.push(Buffer.from('a€€b'));
    const drained = buffer.drain();
    expect(drained.omittedBytes).toBe(2);
    const text = decodeDrained(decoder, drained);
    expect(text.startsWith('a')).toBe(true);
    expect(text.endsWith('b')).toBe(true);
    expect(text).not.toContain('€');
    expect(text).toContain(REPLACEMENT);
  });

  it('does not glue head bytes to unrelated tail bytes across a gap', () => {
    const decoder = new Utf8StreamDecoder();
    const euro = Buffer.from('€');
    // The head ends with the first two bytes of a euro and the tail starts with its last byte.
    const drained = {
      head: Buffer.from([0x61, euro[0]!, euro[1]!]),
      tail: Buffer.from([euro[2]!, 0x62]),
      omittedBytes: 5,
    };
    expect(decodeDrained(decoder, drained)).toBe(`a${REPLACEMENT}\n... 5 bytes omitted ...\n${REPLACEMENT}b`);
  });

  it('marks the gap on a line of its own, as Codex does', () => {
    const buffer = new HeadTailBuffer(10);
    buffer.push(Buffer.from('0123456789'));
    buffer.push(Buffer.from('ab'));
    expect(decodeDrained(new Utf8StreamDecoder(), buffer.drain())).toBe('01234\n... 2 bytes omitted ...\n789ab');
  });

  it('keeps decoding later drains normally after a gap', () => {
    const decoder = new Utf8StreamDecoder();
    decodeDrained(decoder, { head: Buffer.from([0xe2]), tail: Buffer.from([0x82]), omittedBytes: 1 });
    const next = decodeDrained(decoder, { head: Buffer.from('ok €'), tail: Buffer.alloc(0), omittedBytes: 0 });
    expect(next).toBe('ok €');
  });
});
