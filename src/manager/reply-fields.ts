import { z } from 'zod';

// A reply's fields, each defined once in a table keyed by the library's (camelCase) name: the library's object type,
// the wire's (snake_case) zod schema that tools declare as their output schema, and the mapping from one to the
// other are all derived from the table, so a field added, renamed or described differently changes everywhere at once.

/** One field of a reply. */
export interface ReplyField<Library extends z.ZodType = z.ZodType, Wire extends z.ZodType = z.ZodType> {
  /** Its value in the library's object. */
  readonly library: Library;
  /** Its value on the wire, described for the model. */
  readonly wire: Wire;
  /** The wire's value of the library's; undefined leaves the field out. `reply`: the whole library object. */
  readonly toWire: (value: z.output<Library>, reply: Readonly<Record<string, unknown>>) => z.output<Wire> | undefined;
}

export type ReplyFields = Readonly<Record<string, ReplyField>>;

/** `chunkId` → `chunk_id`. */
type SnakeCase<S extends string, Done extends string = ''> = S extends `${infer Head}${infer Tail}`
  ? SnakeCase<Tail, `${Done}${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}`>
  : Done;

/** Names already converted: a reply converts the same dozen on every call. */
const snakeNames = new Map<string, string>();
function snakeCase(name: string): string {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    snakeNames.set(name, snake);
  }
  return snake;
}

/** An optional field is left out of the wire when it says nothing: undefined, false (a flag not raised) or ''. */
const saysNothing = (value: unknown) => value === undefined || value === false || value === '';

/**
 * A field alike on both sides: `schema`, with the description the model reads. A required one is always on the wire;
 * an optional one only when it says something (see saysNothing).
 */
export function field<Schema extends z.ZodType>(schema: Schema): ReplyField<Schema, Schema> {
  const optional = schema.safeParse(undefined).success;
  return {
    library: schema,
    wire: schema,
    toWire: (value) => (optional && saysNothing(value) ? undefined : (value as z.output<Schema>)),
  };
}

/** A field that reads differently on the wire: `wire` is its schema there, `toWire` its value (undefined: left out). */
export function mappedField<Library extends z.ZodType, Wire extends z.ZodType>(
  library: Library,
  wire: Wire,
  toWire: ReplyField<Library, Wire>['toWire'],
): ReplyField<Library, Wire> {
  return { library, wire, toWire };
}

type LibraryShape<Fields extends ReplyFields> = { -readonly [Name in keyof Fields]: Fields[Name]['library'] };
type WireShape<Fields extends ReplyFields> = {
  -readonly [Name in keyof Fields as SnakeCase<Name & string>]: Fields[Name]['wire'];
};

/** The library's object, camelCase: optional fields are optional keys. */
export type LibraryForm<Fields extends ReplyFields> = z.output<z.ZodObject<LibraryShape<Fields>>>;
/** The wire's schema: snake_case keys, in the table's order, each described. */
export type WireSchema<Fields extends ReplyFields> = z.ZodObject<WireShape<Fields>>;
export type WireForm<Fields extends ReplyFields> = z.output<WireSchema<Fields>>;

export function wireSchema<Fields extends ReplyFields>(fields: Fields): WireSchema<Fields> {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, f]) => [snakeCase(name), f.wire]));
  return z.object(shape) as unknown as WireSchema<Fields>;
}

/** The library's object as the wire's: keys in the table's order, each field present as its toWire says. */
export function toWireForm<Fields extends ReplyFields>(fields: Fields, reply: LibraryForm<Fields>): WireForm<Fields> {
  const library = reply as Record<string, unknown>;
  const wire: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(fields)) {
    const value = f.toWire(library[name], library);
    if (value !== undefined) wire[snakeCase(name)] = value;
  }
  return wire as WireForm<Fields>;
}
