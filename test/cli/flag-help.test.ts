import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { flagHelp, flagSynopsis, wrap } from '../../src/cli/flag-help.js';
import { settingLeaves } from '../../src/cli/setting-table.js';

const table = z.strictObject({
  depth: z.number().default(3).meta({ description: 'how deep to look', flag: 'depth', placeholder: 'N' }),
  tags: z.array(z.string()).default([]).meta({ description: 'a tag; repeatable', flag: 'tag', placeholder: 'TAG' }),
  quiet: z.boolean().default(false).meta({ description: 'say less', flag: 'quiet' }),
  secret: z.string().optional().meta({ description: 'file only' }),
});

describe('flag help', () => {
  it('aligns descriptions and ends each with its default', () => {
    expect(flagHelp(settingLeaves(table))).toBe(
      [
        '  --depth N  how deep to look (default: 3)',
        '  --tag TAG  a tag; repeatable (default: none)',
        '  --quiet    say less (default: false)',
      ].join('\n'),
    );
  });

  it('wraps long descriptions under themselves without parting "(default:" from its value', () => {
    const long = z.strictObject({
      n: z
        .number()
        .default(12345)
        .meta({ description: 'word '.repeat(18).trim(), flag: 'n', placeholder: 'N' }),
    });
    // 51 columns of text: "(default:" would fit after the 8 words of the second line, "(default: 12345)" does not.
    expect(flagHelp(settingLeaves(long), 60).split('\n')).toEqual([
      '  --n N  word word word word word word word word word word',
      '         word word word word word word word word',
      '         (default: 12345)',
    ]);
  });

  it('writes a usage synopsis, marking repeatable flags', () => {
    expect(flagSynopsis(settingLeaves(table))).toBe('[--depth N] [--tag TAG]... [--quiet]');
  });

  it('wraps words greedily', () => {
    expect(wrap('a bb ccc dddd', 6)).toEqual(['a bb', 'ccc', 'dddd']);
    expect(wrap('', 6)).toEqual([]);
  });
});
