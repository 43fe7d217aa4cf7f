import { describe, expect, it } from 'vitest';
import { parsePatch, type UpdateChunk } from '../../src/patch/parse-patch.js';
import { seekLines } from '../../src/patch/seek-lines.js';
import { updatedContents } from '../../src/patch/updated-contents.js';

/** The chunks of a one-file update patch, written as a model writes them. */
function chunks(body: string): UpdateChunk[] {
  const [hunk] = parsePatch(`*** Begin Patch\n*** Update File: f\n${body}\n*** End Patch`);
  if (hunk?.kind !== 'update') throw new Error('expected an update');
  return hunk.chunks;
}

describe('seekLines', () => {
  it('finds a match exactly, then ignoring trailing whitespace, then both ends, then typographic punctuation', () => {
    expect(seekLines(['a', 'b', 'c'], ['b', 'c'], 0, false)).toBe(1);
    expect(seekLines(['a  ', 'b\t'], ['a', 'b'], 0, false)).toBe(0);
    expect(seekLines(['   a ', '  b'], ['a', 'b'], 0, false)).toBe(0);
    expect(seekLines(['x \u2013 \u201Cy\u201D\u00A0z'], ['x - "y" z'], 0, false)).toBe(0);
  });

  it('prefers an exact match later over a loose one earlier, and looks at the end first for end of file', () => {
    expect(seekLines(['a ', 'a'], ['a'], 0, false)).toBe(1);
    expect(seekLines(['a', 'b', 'a'], ['a'], 0, true)).toBe(2);
    expect(seekLines(['a'], ['a', 'b'], 0, false)).toBe(-1);
  });
});

describe('updatedContents', () => {
  it('replaces lines found after their context, chunk by chunk', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\n';
    expect(updatedContents(before, chunks('@@\n one\n-two\n+TWO\n@@ four\n-five\n+FIVE\n*** End of File'), 'f')).toBe(
      'one\nTWO\nthree\nfour\nFIVE\n',
    );
  });

  it('puts a chunk of additions only at the end, and always ends the file with a newline', () => {
    expect(updatedContents('a\nb', chunks('@@\n+c'), 'f')).toBe('a\nb\nc\n');
    expect(updatedContents('a\nb', chunks('@@\n-b\n+B'), 'f')).toBe('a\nB\n');
  });

  it('names the file and the lines it could not find', () => {
    expect(() => updatedContents('a\n', chunks('@@\n-nothere\n+x'), '/w/f.txt')).toThrow(
      'Failed to find expected lines in /w/f.txt:\nnothere',
    );
    expect(() => updatedContents('a\n', chunks('@@ class X\n-a\n+b'), '/w/f.txt')).toThrow(
      "Failed to find context 'class X' in /w/f.txt",
    );
  });
});
