import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../src/patch/parse-patch.js';

const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`;

describe('parsePatch', () => {
  it('reads added, deleted and updated files, with a move and a context header', () => {
    const hunks = parsePatch(
      patch(
        [
          '*** Add File: a/new.py',
          '+abc',
          '+def',
          '*** Delete File: old.py',
          '*** Update File: mod.py',
          '*** Move to: moved.py',
          '@@ def f():',
          '-    pass',
          '+    return 1',
        ].join('\n'),
      ),
    );
    expect(hunks).toEqual([
      { kind: 'add', path: 'a/new.py', contents: 'abc\ndef\n' },
      { kind: 'delete', path: 'old.py' },
      {
        kind: 'update',
        path: 'mod.py',
        moveTo: 'moved.py',
        chunks: [{ context: 'def f():', oldLines: ['    pass'], newLines: ['    return 1'], endOfFile: false }],
      },
    ]);
  });

  it('reads several chunks of one file, an end-of-file mark, and a first chunk without @@', () => {
    const [hunk] = parsePatch(
      patch(['*** Update File: f', ' keep', '-a', '+A', '', '@@', ' x', '-y', '+Y', '*** End of File'].join('\n')),
    );
    expect(hunk).toEqual({
      kind: 'update',
      path: 'f',
      chunks: [
        { oldLines: ['keep', 'a', ''], newLines: ['keep', 'A', ''], endOfFile: false },
        { oldLines: ['x', 'y'], newLines: ['x', 'Y'], endOfFile: true },
      ],
    });
  });

  it('accepts padding around markers and a heredoc wrapper left around the patch', () => {
    expect(parsePatch(' *** Begin Patch \n*** Add File: f\n+x\n *** End Patch ')).toHaveLength(1);
    expect(parsePatch("<<'EOF'\n*** Begin Patch\n*** Delete File: f\n*** End Patch\nEOF")).toEqual([
      { kind: 'delete', path: 'f' },
    ]);
  });

  it('says which marker is missing', () => {
    expect(() => parsePatch('bad')).toThrow("invalid patch: The first line of the patch must be '*** Begin Patch'");
    expect(() => parsePatch('*** Begin Patch\nbad')).toThrow(
      "invalid patch: The last line of the patch must be '*** End Patch'",
    );
  });

  it('names the line of a bad hunk header, an empty update and a stray line', () => {
    expect(() => parsePatch(patch('bogus'))).toThrow(
      "invalid hunk at line 2, 'bogus' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
    );
    expect(() => parsePatch(patch('*** Add File: a\n+a\n*** Update File: t.py'))).toThrow(
      "invalid hunk at line 4, Update file hunk for path 't.py' is empty",
    );
    expect(() => parsePatch(patch('*** Update File: t\n@@\nnope'))).toThrow(
      "invalid hunk at line 4, Unexpected line found in update hunk: 'nope'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
    );
    expect(() => parsePatch(patch('*** Update File: t\n-a\nx'))).toThrow(
      "invalid hunk at line 4, Expected update hunk to start with a @@ context marker, got: 'x'",
    );
  });
});

describe('parsePatch on a patch of many hunks', () => {
  it('takes time in proportion to its length (200 000 hunks well within the test timeout)', () => {
    const hunks = Array.from({ length: 200_000 }, (_, i) => `*** Delete File: f${i}`);
    const parsed = parsePatch(['*** Begin Patch', ...hunks, '*** End Patch'].join('\n'));
    expect(parsed).toHaveLength(200_000);
    expect(parsed.at(-1)).toEqual({ kind: 'delete', path: 'f199999' });
  }, 10_000);
});
