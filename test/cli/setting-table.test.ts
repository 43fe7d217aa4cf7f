import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultText, givenSettings, layerSettings, settingLeaves } from '../../src/cli/setting-table.js';

const table = z.strictObject({
  name: z
    .string()
    .default(() => 'computed')
    .meta({ description: 'a name', flag: 'name', placeholder: 'NAME' }),
  limit: z.number().default(5).meta({ description: 'a limit', flag: 'limit', placeholder: 'N', shownDefault: 'five' }),
  inner: z
    .strictObject({
      list: z.array(z.string()).default([]).meta({ description: 'a list', flag: 'item', placeholder: 'X' }),
      map: z.record(z.string(), z.string()).optional().meta({ description: 'a map', flag: 'pair', placeholder: 'K=V' }),
    })
    .prefault({}),
});
const leaves = settingLeaves(table);

describe('settingLeaves', () => {
  it('walks nested objects, naming leaves by their dotted path and kind', () => {
    expect(leaves.map((leaf) => [leaf.name, leaf.kind])).toEqual([
      ['name', 'string'],
      ['limit', 'number'],
      ['inner.list', 'list'],
      ['inner.map', 'map'],
    ]);
  });

  it('refuses a leaf without a description and a flag the CLI cannot type', () => {
    expect(() => settingLeaves(z.strictObject({ bare: z.string().optional() }))).toThrow(/bare has no description/);
    const union = z.union([z.string(), z.number()]).optional().meta({ description: 'either', flag: 'either' });
    expect(() => settingLeaves(z.strictObject({ union }))).toThrow(/union: a zod union cannot be a CLI flag/);
  });
});

describe('defaultText', () => {
  it('prefers shownDefault, then the zod default (calling a function default), then none', () => {
    expect(leaves.map(defaultText)).toEqual(['computed', 'five', 'none', 'none']);
  });
});

describe('givenSettings', () => {
  it('keeps the parsed values of the keys the input names, and none of the filled-in defaults', () => {
    const input = { limit: 9, inner: { map: { A: '1' } } };
    expect(givenSettings(leaves, input, table.parse(input))).toEqual({ limit: 9, inner: { map: { A: '1' } } });
    expect(givenSettings(leaves, {}, table.parse({}))).toEqual({});
  });
});

describe('layerSettings', () => {
  it('replaces plain values, concatenates lists and merges maps, the upper layer winning', () => {
    const under = { name: 'file', limit: 1, inner: { list: ['a'], map: { A: 'file', B: 'file' } } };
    const over = { limit: 2, inner: { list: ['b'], map: { B: 'flag' } } };
    expect(layerSettings(leaves, under, over)).toEqual({
      name: 'file',
      limit: 2,
      inner: { list: ['a', 'b'], map: { A: 'file', B: 'flag' } },
    });
  });
});
