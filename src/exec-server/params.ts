/**
 * A tiny validator for request params that answers in the real server's words (it decodes with serde): a field of
 * the wrong type is ``invalid type: number, expected a string``, a missing one ``missing field `tty` ``, absent
 * params ``invalid type: null, expected struct WireExecParams``. Fields are checked in the order they were sent,
 * then the missing ones in declaration order, as serde does. Unknown fields are ignored.
 */

import { invalidParams } from './rpc-error.js';

declare const wireForm: unique symbol;

/**
 * Turns a JSON value into a T, or throws a -32602 RpcError. `W` is the JSON form a client sends, when it is not T (a
 * base64 string read as bytes); it exists only in the type, so that each wire shape is written once, as its check,
 * and both sides take their types from that: Infer<typeof check> for the server, Wire<typeof check> for a client.
 */
export type Check<T, W = T> = ((value: unknown) => T) & { readonly [wireForm]?: W };

/** What a check reads a value as. */
export type Infer<C extends Check<unknown, unknown>> = C extends (value: unknown) => infer T ? T : never;

/** The JSON form a check takes: what a client sends. */
export type Wire<C extends Check<unknown, unknown>> = C extends { readonly [wireForm]?: infer W } ? W : never;

/** How serde names a JSON value in `invalid type: ...`. */
function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (Array.isArray(value)) return 'sequence';
  return 'map';
}

const invalidType = (value: unknown, expected: string) =>
  invalidParams(`invalid type: ${describe(value)}, expected ${expected}`);

export const string: Check<string> = (value) => {
  if (typeof value !== 'string') throw invalidType(value, 'a string');
  return value;
};

export const boolean: Check<boolean> = (value) => {
  if (typeof value !== 'boolean') throw invalidType(value, 'a boolean');
  return value;
};

/** A non-negative integer (u64 / usize). */
export const count: Check<number> = (value) => {
  if (typeof value !== 'number') throw invalidType(value, 'u64');
  if (!Number.isSafeInteger(value) || value < 0) throw invalidParams('invalid number');
  return value;
};

export function array<T, W>(item: Check<T, W>): Check<T[], W[]> {
  return (value) => {
    if (!Array.isArray(value)) throw invalidType(value, 'a sequence');
    return value.map(item);
  };
}

export function record<T, W>(item: Check<T, W>): Check<Record<string, T>, Record<string, W>> {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidType(value, 'a map');
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, item(v)]));
  };
}

/** One of a few strings: ``unknown variant `kill`, expected `interrupt` ``. */
export function variant<const T extends string>(...names: T[]): Check<T> {
  const expected = names.length === 1 ? `\`${names[0]}\`` : `one of ${names.map((n) => `\`${n}\``).join(', ')}`;
  return (value) => {
    const text = string(value);
    if (!(names as string[]).includes(text)) throw invalidParams(`unknown variant \`${text}\`, expected ${expected}`);
    return text as T;
  };
}

/** Marks a field that may be absent or null (serde's Option): it then reads as undefined. */
export interface Optional<T, W = T> {
  optional: Check<T, W>;
}

export function optional<T, W>(check: Check<T, W>): Optional<T, W> {
  return { optional: check };
}

/** Any JSON value, unchecked (fields we take but do not read). */
export const anything: Check<unknown> = (value) => value;

/** Any JSON value, taken as it came for code of its own to read (the `sandbox` object); a client sends a W. */
export function unchecked<W>(): Check<unknown, W> {
  return (value) => value;
}

type Field = Check<unknown, unknown> | Optional<unknown, unknown>;
/** One object type instead of an intersection, for readable types and messages. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

type Parsed<F extends Record<string, Field>> = Flat<
  {
    [K in keyof F as F[K] extends Optional<unknown, unknown> ? never : K]: F[K] extends Check<unknown, unknown>
      ? Infer<F[K]>
      : never;
  } & {
    [K in keyof F as F[K] extends Optional<unknown, unknown> ? K : never]?: F[K] extends Optional<infer T, unknown>
      ? T
      : never;
  }
>;

/** As a client sends it: an optional field may also be null. */
type WireStruct<F extends Record<string, Field>> = Flat<
  {
    [K in keyof F as F[K] extends Optional<unknown, unknown> ? never : K]: F[K] extends Check<unknown, unknown>
      ? Wire<F[K]>
      : never;
  } & {
    [K in keyof F as F[K] extends Optional<unknown, unknown> ? K : never]?: F[K] extends Optional<unknown, infer W>
      ? W | null
      : never;
  }
>;

/** A struct named `name` (for the null/absent message) with these fields. */
export function struct<F extends Record<string, Field>>(name: string, fields: F): Check<Parsed<F>, WireStruct<F>> {
  return (value) => {
    if (typeof value !== 'object' || value === null) throw invalidType(value, `struct ${name}`);
    if (Array.isArray(value)) {
      // serde also reads a struct from a sequence, field by field: check the first, say what is missing after.
      const first = Object.entries(fields)[0];
      if (first !== undefined && value.length > 0) checkField(first[1], value[0]);
      throw invalidType(value, `struct ${name}`);
    }
    const input = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(input)) {
      const field = fields[key];
      if (field !== undefined) out[key] = checkField(field, raw);
    }
    for (const [key, field] of Object.entries(fields)) {
      if (!(key in input) && !('optional' in field)) throw invalidParams(`missing field \`${key}\``);
    }
    return out as Parsed<F>;
  };
}

function checkField(field: Field, raw: unknown): unknown {
  if ('optional' in field) return raw === null || raw === undefined ? undefined : field.optional(raw);
  return field(raw);
}
