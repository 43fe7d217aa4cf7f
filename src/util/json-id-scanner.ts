/** The longest top-level key looked at: `"id"` written with every letter escaped (`"\u0069\u0064"`) fits. */
const MAX_KEY_BYTES = 32;
/** The longest id value kept: a JSON-RPC id is a number or a short string. A longer one is given up on. */
export const MAX_ID_BYTES = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isWhitespace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/** Where the scan is in the top-level object: what the next significant byte at depth 1 must be. */
type Expecting = 'start' | 'key' | 'colon' | 'value' | 'comma';

/**
 * Finds the value of the top-level `"id"` member of a JSON object fed to it in pieces of any size, without keeping or
 * parsing the whole: it follows strings, escapes and nesting depth byte by byte (constant work per byte) and keeps
 * only the current top-level key and the id's value, each bounded. `"id"` keys nested deeper and `"id":` inside
 * strings do not count; the first top-level id wins. Structural bytes are ASCII, which no byte of a multi-byte UTF-8
 * character equals, so the bytes are read as they come. Malformed input, or an id that never ends, finds nothing.
 */
export class TopLevelIdScanner {
  private expecting: Expecting = 'start';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The bytes of the top-level key being read, quotes included; undefined while not in one. */
  private key: number[] | undefined;
  private keyIsId = false;
  /** The bytes of the id's value while it is read. */
  private value: number[] | undefined;
  private stopped = false;
  private found: { id: unknown } | undefined;

  /** The id, once its whole value was read; undefined before, or when there is none to find. */
  get id(): unknown {
    return this.found?.id;
  }

  /** True once more input cannot change the answer (found, or given up). */
  get done(): boolean {
    return this.stopped;
  }

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.stopped; i++) this.step(bytes[i]!);
  }

  private stop(found?: { id: unknown }): void {
    this.stopped = true;
    this.found = found;
  }

  private step(byte: number): void {
    if (this.inString) return this.stringByte(byte);
    if (this.value !== undefined && this.depth === 1 && (byte === COMMA || byte === CLOSE_OBJECT)) {
      return this.endValue();
    }
    if (this.value !== undefined && !isWhitespace(byte)) this.keep(this.value, byte, MAX_ID_BYTES);
    if (isWhitespace(byte)) return;
    if (this.depth === 0) {
      if (byte !== OPEN_OBJECT || this.expecting !== 'start') return this.stop(); // not an object
      this.depth = 1;
      this.expecting = 'key';
      return;
    }
    if (this.depth > 1) return this.nestedByte(byte);
    switch (this.expecting) {
      case 'key':
        if (byte === CLOSE_OBJECT) return this.stop();
        if (byte !== QUOTE) return this.stop();
        this.key = [byte];
        this.inString = true;
        return;
      case 'colon':
        if (byte !== COLON) return this.stop();
        this.expecting = 'value';
        if (this.keyIsId) this.value = [];
        return;
      case 'value':
        this.expecting = 'comma';
        if (byte === QUOTE) this.inString = true;
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.depth++;
        return;
      case 'comma':
        // The rest of a scalar value (digits, letters) until the comma or the closing brace.
        if (byte === COMMA) this.expecting = 'key';
        else if (byte === CLOSE_OBJECT) this.stop();
        else if (byte === QUOTE || byte === OPEN_OBJECT || byte === OPEN_ARRAY || byte === COLON) this.stop();
        return;
      case 'start':
        return this.stop();
    }
  }

  /** A byte inside an object or array nested in the top-level one: only depth and strings matter. */
  private nestedByte(byte: number): void {
    if (byte === QUOTE) this.inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) this.depth--;
  }

  private stringByte(byte: number): void {
    if (this.key !== undefined) this.keep(this.key, byte, MAX_KEY_BYTES);
    else if (this.value !== undefined) this.keep(this.value, byte, MAX_ID_BYTES);
    if (this.escaped) {
      this.escaped = false;
    } else if (byte === BACKSLASH) {
      this.escaped = true;
    } else if (byte === QUOTE) {
      this.inString = false;
      if (this.key !== undefined) this.endKey();
    }
  }

  /** Keeps a byte of the key or the value; past `max` bytes that one is no id (a key) or too long to use (a value). */
  private keep(into: number[], byte: number, max: number): void {
    if (into.length < max) into.push(byte);
    else if (into === this.value) this.stop();
    else into.length = max + 1; // marks the key as too long to be "id"
  }

  private endKey(): void {
    const bytes = this.key!;
    this.key = undefined;
    this.expecting = 'colon';
    if (bytes.length > MAX_KEY_BYTES) return void (this.keyIsId = false);
    const key = parseJson(Buffer.from(bytes).toString('utf8'));
    // "\u0069d" is "id" to any parser; a key that is no JSON string means the whole is no JSON.
    if (key === undefined) return this.stop();
    this.keyIsId = key.value === 'id' && this.found === undefined;
  }

  private endValue(): void {
    const parsed = parseJson(Buffer.from(this.value!).toString('utf8'));
    this.stop(parsed === undefined ? undefined : { id: parsed.value });
  }
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The top-level id of `text` (a JSON object, or its beginning), or undefined when it holds no complete one. */
export function scanTopLevelId(text: string | Uint8Array): unknown {
  const scanner = new TopLevelIdScanner();
  scanner.feed(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
  return scanner.id;
}
