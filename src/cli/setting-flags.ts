import type { ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { setAt, type SettingLeaf } from './setting-table.js';
import { UsageError } from './usage-error.js';

type ParseArgsOptions = NonNullable<ParseArgsConfig['options']>;
type FlagValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** node:util parseArgs options for every leaf with a flag: booleans are switches, lists and maps repeat. */
export function flagOptions(leaves: SettingLeaf[]): ParseArgsOptions {
  const options: ParseArgsOptions = {};
  for (const { meta, kind, name } of leaves) {
    if (meta.flag === undefined) continue;
    if (meta.flag in options) throw new Error(`--${meta.flag} is declared twice (again by ${name})`);
    options[meta.flag] =
      kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: kind === 'list' || kind === 'map' };
  }
  return options;
}

/**
 * The settings the command line gives, as a tree shaped like the table, each value checked by its leaf's own
 * schema. Flags not given stay absent (no defaults); a leaf's `envVar` stands in for its missing flag.
 */
export function readFlags(
  leaves: SettingLeaf[],
  values: FlagValues,
  env: Record<string, string | undefined> = {},
): Record<string, unknown> {
  const given: Record<string, unknown> = {};
  for (const leaf of leaves) {
    const { flag, envVar } = leaf.meta;
    if (flag === undefined) continue;
    const fromEnv = values[flag] === undefined && envVar !== undefined && env[envVar] !== undefined;
    const raw = fromEnv ? env[envVar as string] : values[flag];
    if (raw !== undefined) setAt(given, leaf.path, checkFlag(leaf, fromEnv ? (envVar as string) : `--${flag}`, raw));
  }
  return given;
}

/** `readFlags` with the table's defaults filled in, for tables whose values the CLI uses itself. */
export function resolveFlags<T extends z.ZodObject>(
  table: T,
  leaves: SettingLeaf[],
  values: FlagValues,
  env?: Record<string, string | undefined>,
): z.output<T> {
  return table.parse(readFlags(leaves, values, env)) as z.output<T>;
}

function checkFlag(leaf: SettingLeaf, source: string, raw: string | boolean | Array<string | boolean>): unknown {
  const value = toValue(leaf, source, raw);
  const result = leaf.schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // The leaf's message says what was expected; what came is the text typed, not what it converted to (NaN).
  const expected = (issue?.message ?? 'a valid value').replace(/, got [\s\S]*$/, '');
  throw new UsageError(`${source}: ${expected}, got ${JSON.stringify(offendingText(leaf, raw, issue?.path[0]))}`);
}

function toValue(leaf: SettingLeaf, source: string, raw: string | boolean | Array<string | boolean>): unknown {
  if (leaf.kind === 'number') return typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (leaf.kind === 'boolean' && leaf.meta.negatedFlag) return raw !== true;
  if (leaf.kind !== 'map') return raw;
  const map: Record<string, string> = {};
  for (const pair of raw as string[]) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`${source}: expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    map[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return map;
}

/** For a repeated flag, the one occurrence the schema refused. */
function offendingText(leaf: SettingLeaf, raw: unknown, key: PropertyKey | undefined): unknown {
  if (!Array.isArray(raw)) return raw;
  if (leaf.kind === 'list' && typeof key === 'number') return raw[key];
  if (leaf.kind === 'map' && typeof key === 'string') return raw.find((pair) => String(pair).startsWith(`${key}=`));
  return raw;
}
