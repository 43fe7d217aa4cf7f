import type { z } from 'zod';
import type { SettingMeta } from '../manager/settings.js';

/**
 * Reading a settings table: a zod strict object whose leaves carry `.meta(SettingMeta)`, nested objects allowed
 * (`env.inherit`). Generic over the table, so the manager's settings and the CLI's own options share it.
 */

/** A setting's meta as the CLI reads it: the manager's fields, plus an environment variable a flag falls back to. */
export type FlagMeta = SettingMeta & { envVar?: string };

/** What a leaf's value is: decides its parseArgs type, how its text converts and how a file and flags combine. */
type SettingKind = 'boolean' | 'number' | 'string' | 'list' | 'map' | 'other';

export interface SettingLeaf {
  /** Keys from the table's root, e.g. ['env', 'inherit']. */
  path: string[];
  /** The path joined with dots, e.g. `env.inherit`: the library option and config key as people write it. */
  name: string;
  kind: SettingKind;
  /** The leaf's own schema, default included: it checks the flag's value. */
  schema: z.ZodType;
  /** The schema without its default/optional wrappers. */
  base: z.core.$ZodType;
  meta: FlagMeta;
  /** The zod default (computed afresh: some are functions, e.g. of process.cwd()); absent when optional. */
  defaultValue?: () => unknown;
}

const WRAPPERS = new Set(['default', 'optional', 'prefault', 'nullable', 'readonly']);

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let inner = schema;
  while (WRAPPERS.has(inner._zod.def.type))
    inner = (inner._zod.def as unknown as { innerType: z.core.$ZodType }).innerType;
  return inner;
}

const KINDS: Record<string, SettingKind> = {
  boolean: 'boolean',
  number: 'number',
  string: 'string',
  enum: 'string',
  literal: 'string',
  array: 'list',
  record: 'map',
};

/** Every leaf of `table`, depth first in declaration order. Throws on a leaf the CLI cannot express. */
export function settingLeaves(table: z.ZodObject, path: string[] = []): SettingLeaf[] {
  return Object.entries(table.shape).flatMap(([key, schema]): SettingLeaf[] => {
    const at = [...path, key];
    const base = unwrap(schema);
    if (base._zod.def.type === 'object') return settingLeaves(base as z.ZodObject, at);
    const name = at.join('.');
    const meta = schema.meta() as FlagMeta | undefined;
    if (meta?.description === undefined) throw new Error(`setting ${name} has no description in its .meta()`);
    const kind = KINDS[base._zod.def.type] ?? 'other';
    if (kind === 'other' && meta.flag !== undefined) {
      throw new Error(`setting ${name}: a zod ${base._zod.def.type} cannot be a CLI flag`);
    }
    const leaf: SettingLeaf = { path: at, name, kind, schema, base, meta };
    if (schema._zod.def.type === 'default') {
      const def = schema._zod.def as unknown as { defaultValue: unknown };
      leaf.defaultValue = () => def.defaultValue; // a getter in zod: calls a function default each time
    }
    return [leaf];
  });
}

/** The default as --help and the README show it: `shownDefault`, else the zod default, else `none`. */
export function defaultText(leaf: SettingLeaf): string {
  if (leaf.meta.shownDefault !== undefined) return leaf.meta.shownDefault;
  if (leaf.defaultValue === undefined) return 'none';
  const value = leaf.defaultValue();
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? 'none' : entries.map(([k, v]) => `${k}=${String(v)}`).join(', ');
  }
  return String(value);
}

/** The flag as a user types it, e.g. `--max-sessions N`; undefined for a setting without a flag. */
export function flagUsage(leaf: SettingLeaf): string | undefined {
  const { flag, placeholder } = leaf.meta;
  if (flag === undefined) return undefined;
  return placeholder === undefined ? `--${flag}` : `--${flag} ${placeholder}`;
}

type Tree = Record<string, unknown>;

export function getAt(tree: unknown, path: string[]): unknown {
  let node = tree;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Tree)[key];
  }
  return node;
}

export function setAt(tree: Tree, path: string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Tree;
  node[path.at(-1) as string] = value;
}

/**
 * The leaves `input` names, valued as in `parsed` (the schema's output for that input): what a config file said,
 * without the defaults the schema filled in, so a default never overrides a flag or the library's own choice.
 */
export function givenSettings(leaves: SettingLeaf[], input: unknown, parsed: unknown): Tree {
  const given: Tree = {};
  for (const leaf of leaves) {
    if (getAt(input, leaf.path) !== undefined) setAt(given, leaf.path, getAt(parsed, leaf.path));
  }
  return given;
}

/** `over` on top of `under`, leaf by leaf: lists are concatenated and maps merged (`over` wins); the rest replaced. */
export function layerSettings(leaves: SettingLeaf[], under: Tree, over: Tree): Tree {
  const result: Tree = {};
  for (const leaf of leaves) {
    const low = getAt(under, leaf.path);
    const high = getAt(over, leaf.path);
    if (low === undefined && high === undefined) continue;
    let value = high ?? low;
    if (low !== undefined && high !== undefined && leaf.kind === 'list') value = [...(low as []), ...(high as [])];
    if (low !== undefined && high !== undefined && leaf.kind === 'map') value = { ...(low as Tree), ...(high as Tree) };
    setAt(result, leaf.path, value);
  }
  return result;
}
