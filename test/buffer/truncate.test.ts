import { describe, it, expect } from 'vitest';
import { approxTokenCount, countLines, omissionMarker, truncateForModel } from '../../src/buffer/truncate.js';

const MARKER = /\u2026(\d+) tokens truncated\u2026/;

/** Splits a truncated result into its header, head, dropped token count and tail. */
function parts(text: string): { header: string; head: string; dropped: number; tail: string } {
  const headerEnd = text.indexOf('\n\n') + 2;
  const body = text.slice(headerEnd);
  const match = MARKER.exec(body);
  if (!match || match.index === undefined) throw new Error(`no marker in ${JSON.stringify(text)}`);
  return {
    header: text.slice(0, headerEnd),
    head: body.slice(0, match.index),
    dropped: Number(match[1]),
    tail: body.slice(match.index + match[0].length),
  };
}

describe('approxTokenCount', () => {
  it('estimates tokens as ceil(utf8 bytes / 4)', () => {
    expect(approxTokenCount('')).toBe(0);
    expect(approxTokenCount('a')).toBe(1);
    expect(approxTokenCount('abcd')).toBe(1);
    expect(approxTokenCount('abcde')).toBe(2);
    // 'é' is 2 bytes and '😀' is 4 bytes in UTF-8.
    expect(approxTokenCount('éé')).toBe(1);
    expect(approxTokenCount('😀é')).toBe(2);
  });
});

describe('countLines', () => {
  it('counts the same in UTF-8 bytes as in text', () => {
    for (const text of ['', 'a', 'a\n', '\n', 'a\n\nb', 'é\n€\r\n😀', 'y\r\n'.repeat(1000) + 'end']) {
      expect(countLines(Buffer.from(text, 'utf8'))).toBe(countLines(text));
    }
  });

  it('counts lines like Rust str::lines()', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\n\nb')).toBe(3);
    expect(countLines('\n')).toBe(1);
  });

  it('counts a trailing CRLF like a trailing LF', () => {
    expect(countLines('a\r\n')).toBe(1);
    expect(countLines('a\r\nb\r\n')).toBe(2);
    expect(countLines('a\r\nb')).toBe(2);
  });
});

describe('truncateForModel', () => {
  it('truncates a short sentence to exactly the expected output', () => {
    const text = 'token one token two token three token four token five';
    expect(Buffer.byteLength(text)).toBe(53);
    const result = truncateForModel(text, 4);
    expect(result.text).toBe(
      'Warning: truncated output (original token count: 14)\nTotal output lines: 1\n\ntoken on\u202610 tokens truncated\u2026ken five',
    );
    expect(result.truncated).toBe(true);
    expect(result.originalTokenCount).toBe(14);
  });

  it('keeps exactly the first and last 200 bytes of 5000 lines at 100 tokens', () => {
    const text = 'token token \n'.repeat(5000);
    const result = truncateForModel(text, 100);
    const header = 'Warning: truncated output (original token count: 16250)\nTotal output lines: 5000\n\n';
    expect(result.text).toBe(header + text.slice(0, 200) + '\u202616150 tokens truncated\u2026' + text.slice(-200));
    expect(result.truncated).toBe(true);
    expect(result.originalTokenCount).toBe(16250);
  });

  it('returns text at exactly the budget unchanged', () => {
    const text = 'abcdefghijklmnop';
    const result = truncateForModel(text, 4);
    expect(result).toEqual({ text, truncated: false, originalTokenCount: 4 });
  });

  it('truncates text one byte over the budget', () => {
    const result = truncateForModel('abcdefghijklmnopq', 4);
    expect(result.truncated).toBe(true);
    expect(parts(result.text)).toMatchObject({ head: 'abcdefgh', dropped: 1, tail: 'jklmnopq' });
  });

  it('returns empty text unchanged', () => {
    expect(truncateForModel('', 0)).toEqual({ text: '', truncated: false, originalTokenCount: 0 });
  });

  it('keeps no head or tail with a budget of 0', () => {
    const result = truncateForModel('hello\nworld', 0);
    expect(result.text).toBe(
      'Warning: truncated output (original token count: 3)\nTotal output lines: 2\n\n\u20263 tokens truncated\u2026',
    );
    expect(result.truncated).toBe(true);
  });

  it('never splits a 2-byte character at the cut points', () => {
    // 21 'é' = 42 bytes; a 5-token budget gives 10 bytes per side: 5 whole 'é' each.
    const text = 'é'.repeat(21);
    const result = truncateForModel(text, 5);
    const { head, tail, dropped } = parts(result.text);
    expect(head).toBe('é'.repeat(5));
    expect(tail).toBe('é'.repeat(5));
    expect(dropped).toBe(Math.ceil((42 - 20) / 4));
    expect(result.text).not.toContain('\uFFFD');
  });

  it('never splits a 4-byte emoji at the cut points', () => {
    // 10 emoji = 40 bytes; a 3-token budget gives 6 bytes per side: only one whole emoji each.
    const text = '😀'.repeat(10);
    const result = truncateForModel(text, 3);
    const { head, tail } = parts(result.text);
    expect(head).toBe('😀');
    expect(tail).toBe('😀');
    expect(result.text).not.toContain('\uFFFD');
  });

  it('drops a character that would straddle the budget on either side', () => {
    // Head budget 2 bytes cannot fit 'a' + half of '€'; tail budget 2 bytes cannot fit half of '€' + 'b'.
    const text = 'a€€€b';
    const result = truncateForModel(text, 1);
    const { head, tail } = parts(result.text);
    expect(head).toBe('a');
    expect(tail).toBe('b');
  });

  it('fills each side with whole mixed-width characters up to half the byte budget', () => {
    const text = 'é😀abc€xyz😀é';
    const bytes = Buffer.byteLength(text);
    const result = truncateForModel(text, 3);
    const { head, tail, dropped } = parts(result.text);
    expect(Buffer.byteLength(head)).toBeLessThanOrEqual(6);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(6);
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    // 'é' + '😀' is exactly 6 bytes, as is '😀' + 'é'.
    expect(head).toBe('é😀');
    expect(tail).toBe('😀é');
    expect(dropped).toBe(Math.ceil((bytes - 12) / 4));
  });

  it('reports the line count of the original text', () => {
    const text = 'line\n'.repeat(50) + 'last';
    const result = truncateForModel(text, 2);
    expect(parts(result.text).header).toContain('Total output lines: 51\n');
  });
});

describe('truncateForModel on output the buffer cut already', () => {
  // As the buffer hands it over: head, the marker on its own line, tail.
  const text = `${'h'.repeat(30)}\n${omissionMarker(1000)}\n${'t'.repeat(30)}`;
  const omission = { omittedBytes: 1000, originalTokenCount: 265 };

  it('counts everything printed in the warning, as the header does, and puts the marker line under it', () => {
    const result = truncateForModel(text, 5, omission);
    const dropped = Math.ceil((Buffer.byteLength(text) - 20) / 4);
    expect(result.text).toBe(
      `Warning: truncated output (original token count: 265)\n... 1000 bytes omitted ...\n\n${'h'.repeat(10)}\u2026${dropped} tokens truncated\u2026${'t'.repeat(10)}`,
    );
    expect(result.originalTokenCount).toBe(265);
  });

  it('adds no marker line when the cut keeps the marker in place', () => {
    // A short head: the first 40 bytes of the cut hold the marker whole.
    const shortHead = `hhhhh\n${omissionMarker(1000)}\n${'t'.repeat(200)}`;
    const result = truncateForModel(shortHead, 20, omission);
    expect(result.text).toContain(`\n${omissionMarker(1000)}\n`);
    expect(result.text.split(omissionMarker(1000))).toHaveLength(2);
    expect(result.text.startsWith('Warning: truncated output (original token count: 265)\n\n')).toBe(true);
  });

  it('returns text within budget as it is, marker and all', () => {
    expect(truncateForModel(text, 1000, omission)).toEqual({ text, truncated: false, originalTokenCount: 265 });
  });

  it('puts the marker first on text within budget that has lost it', () => {
    expect(truncateForModel('short', 1000, omission).text).toBe('... 1000 bytes omitted ...\nshort');
  });

  it('treats nothing omitted as no omission', () => {
    expect(truncateForModel('hello world!', 1, { omittedBytes: 0, originalTokenCount: 99 }).text).toBe(
      'Warning: truncated output (original token count: 3)\nTotal output lines: 1\n\nhe\u20262 tokens truncated\u2026d!',
    );
  });
});
