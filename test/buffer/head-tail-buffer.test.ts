import { describe, it, expect } from 'vitest';
import { HeadTailBuffer, OUTPUT_MAX_BYTES } from '../../src/buffer/head-tail-buffer.js';

function pushAll(buffer: HeadTailBuffer, ...chunks: string[]): void {
  for (const chunk of chunks) buffer.push(Buffer.from(chunk));
}

function content(buffer: HeadTailBuffer): string {
  return buffer.toBuffer().toString('latin1');
}

describe('HeadTailBuffer', () => {
  it('defaults to a 1 MiB budget split evenly between head and tail', () => {
    const buffer = new HeadTailBuffer();
    expect(OUTPUT_MAX_BYTES).toBe(1024 * 1024);
    expect(buffer.maxBytes).toBe(OUTPUT_MAX_BYTES);
    expect(buffer.headCapacity).toBe(512 * 1024);
    expect(buffer.tailCapacity).toBe(512 * 1024);
  });

  it('gives the odd byte of an odd budget to the tail', () => {
    const buffer = new HeadTailBuffer(7);
    expect(buffer.headCapacity).toBe(3);
    expect(buffer.tailCapacity).toBe(4);
    pushAll(buffer, 'abcdefghij');
    expect(content(buffer)).toBe('abcghij');
  });

  it('rejects a negative or fractional budget', () => {
    expect(() => new HeadTailBuffer(-1)).toThrow(RangeError);
    expect(() => new HeadTailBuffer(1.5)).toThrow(RangeError);
  });

  it('keeps everything while under budget', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, 'abc', 'def');
    expect(content(buffer)).toBe('abcdef');
    expect(buffer.retainedBytes).toBe(6);
    expect(buffer.omittedBytes).toBe(0);
    expect(buffer.totalBytes).toBe(6);
  });

  it('keeps head and tail when over budget', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, '0123456789', 'ab');
    const text = content(buffer);
    expect(text.startsWith('01234')).toBe(true);
    expect(text.endsWith('89ab')).toBe(true);
    expect(text).toBe('01234789ab');
    expect(buffer.omittedBytes).toBe(2);
    expect(buffer.retainedBytes).toBe(10);
  });

  it('keeps only the last byte with a budget of 1', () => {
    const buffer = new HeadTailBuffer(1);
    pushAll(buffer, 'abc');
    expect(content(buffer)).toBe('c');
    expect(buffer.omittedBytes).toBe(2);
    expect(buffer.totalBytes).toBe(3);
  });

  it('omits everything with a budget of 0', () => {
    const buffer = new HeadTailBuffer(0);
    pushAll(buffer, 'abc', 'de');
    expect(content(buffer)).toBe('');
    expect(buffer.retainedBytes).toBe(0);
    expect(buffer.omittedBytes).toBe(5);
    expect(buffer.totalBytes).toBe(5);
    const drained = buffer.drain();
    expect(drained.head.length).toBe(0);
    expect(drained.tail.length).toBe(0);
    expect(drained.omittedBytes).toBe(5);
  });

  it('keeps only the newest tail bytes of a chunk larger than the tail', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, '01234');
    pushAll(buffer, 'ABCDEFGHIJK');
    expect(content(buffer)).toBe('01234GHIJK');
    expect(buffer.omittedBytes).toBe(6);
    expect(buffer.totalBytes).toBe(16);
  });

  it('trims the oldest tail bytes across chunk boundaries', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, '01', '234', '567', '89');
    expect(content(buffer)).toBe('0123456789');
    expect(buffer.omittedBytes).toBe(0);
    pushAll(buffer, 'a');
    expect(content(buffer)).toBe('012346789a');
    expect(buffer.omittedBytes).toBe(1);
  });

  it('splits drained content into head and tail in order', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, '0123456789', 'ab');
    const drained = buffer.drain();
    expect(drained.head.toString()).toBe('01234');
    expect(drained.tail.toString()).toBe('789ab');
    expect(drained.omittedBytes).toBe(2);
    expect(drained.totalBytes).toBe(12);
  });

  it('resets on drain so the head refills with the next bytes', () => {
    const buffer = new HeadTailBuffer(10);
    pushAll(buffer, '0123456789abcdef');
    buffer.drain();
    expect(buffer.retainedBytes).toBe(0);
    expect(buffer.omittedBytes).toBe(0);
    expect(buffer.totalBytes).toBe(0);
    expect(content(buffer)).toBe('');

    pushAll(buffer, 'XYZ');
    const drained = buffer.drain();
    expect(drained.head.toString()).toBe('XYZ');
    expect(drained.tail.toString()).toBe('');
    expect(drained.omittedBytes).toBe(0);
    expect(drained.totalBytes).toBe(3);
  });

  it('counts omitted bytes in totalBytes', () => {
    const buffer = new HeadTailBuffer(4);
    pushAll(buffer, 'abcdefgh', 'ijk');
    expect(buffer.totalBytes).toBe(11);
    expect(buffer.omittedBytes).toBe(7);
    expect(buffer.retainedBytes).toBe(4);
    expect(buffer.totalBytes).toBe(buffer.retainedBytes + buffer.omittedBytes);
  });

  it('ignores empty pushes', () => {
    const buffer = new HeadTailBuffer(4);
    buffer.push(Buffer.alloc(0));
    buffer.push(new Uint8Array(0));
    expect(buffer.totalBytes).toBe(0);
    expect(content(buffer)).toBe('');
  });

  it('accepts a Uint8Array view into a larger buffer', () => {
    const buffer = new HeadTailBuffer(10);
    const backing = new Uint8Array([0x61, 0x62, 0x63, 0x64, 0x65]);
    buffer.push(backing.subarray(1, 4));
    expect(content(buffer)).toBe('bcd');
  });

  it('keeps copies of the pushed bytes: a caller may read into the same buffer again', () => {
    const buffer = new HeadTailBuffer(4);
    const reused = Buffer.from('abcdef');
    buffer.push(reused.subarray(0, 2));
    reused.write('cdef');
    buffer.push(reused.subarray(0, 4));
    reused.write('WXYZ');
    // The head holds "ab", the tail the last two bytes of "cdef", whatever the buffer holds now.
    expect(content(buffer)).toBe('abef');
    expect(buffer.drain()).toMatchObject({ omittedBytes: 2, totalBytes: 6 });
  });

  it('keeps exactly the first and last half-budget bytes of a large push in many chunks', () => {
    const budget = 1000;
    const buffer = new HeadTailBuffer(budget);
    const all = Buffer.alloc(100_003);
    for (let i = 0; i < all.length; i++) all[i] = (i * 31 + 7) % 251;
    // Uneven chunk sizes exercise trimming at arbitrary offsets within chunks.
    for (let offset = 0, size = 1; offset < all.length; offset += size, size = (size % 97) + 1) {
      buffer.push(all.subarray(offset, Math.min(offset + size, all.length)));
    }
    const drained = buffer.drain();
    expect(drained.head.equals(all.subarray(0, budget / 2))).toBe(true);
    expect(drained.tail.equals(all.subarray(all.length - budget / 2))).toBe(true);
    expect(drained.omittedBytes).toBe(all.length - budget);
    expect(drained.totalBytes).toBe(all.length);
  });

  it('absorbs a 200 MB flood in 64 KiB chunks in linear time', () => {
    const buffer = new HeadTailBuffer();
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const chunks = Math.ceil((200 * 1024 * 1024) / chunk.length);
    const start = performance.now();
    for (let i = 0; i < chunks; i++) buffer.push(chunk);
    const elapsed = performance.now() - start;
    expect(buffer.totalBytes).toBe(chunks * chunk.length);
    expect(buffer.retainedBytes).toBe(OUTPUT_MAX_BYTES);
    expect(buffer.omittedBytes).toBe(chunks * chunk.length - OUTPUT_MAX_BYTES);
    // Generous bound: a quadratic implementation would take minutes here.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('stays linear with many tiny pushes', () => {
    const buffer = new HeadTailBuffer(64 * 1024);
    const byte = Buffer.from('z');
    for (let i = 0; i < 500_000; i++) buffer.push(byte);
    expect(buffer.retainedBytes).toBe(64 * 1024);
    expect(buffer.omittedBytes).toBe(500_000 - 64 * 1024);
    expect(content(buffer)).toBe('z'.repeat(64 * 1024));
  });
});
