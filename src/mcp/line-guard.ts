import {
  ErrorCode,
  JSONRPCMessageSchema,
  RequestIdSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** Longest stdio message taken, in bytes: the SDK's own default. 1 MiB of `chars` escaped as JSON fits. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Bytes of an over-long message kept to find its id in; clients put it first, or after a small `params`. */
export const ID_SCAN_BYTES = 64 * 1024;

/**
 * A line passes as the message the schema check produced (the SDK's transport delivers the same), or is dropped,
 * with a JSON-RPC error response to send back as one line of JSON unless it was blank.
 */
export type LineVerdict = { pass: true; message: JSONRPCMessage } | { pass: false; reply?: string };

const example = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

function errorReply(code: number, message: string, id?: unknown): string {
  const valid = RequestIdSchema.safeParse(id);
  return JSON.stringify({ jsonrpc: '2.0', ...(valid.success ? { id: valid.data } : {}), error: { code, message } });
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  return at;
}

/** Index just past the string that opens at `at` (a `"`), or -1 when it does not close within `text`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/** Index just past the JSON value that starts at `at`, or -1 when it does not end within `text`. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first === '{' || first === '[') {
    for (let i = at, depth = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        i = stringEnd(text, i) - 1;
        if (i < 0) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    }
    return -1;
  }
  // A number, true, false or null runs to the next delimiter; one at the very end may have been cut short.
  for (let i = at; i < text.length; i++) if (WHITESPACE.has(text[i]!) || ',}]'.includes(text[i]!)) return i;
  return -1;
}

/** JSON.parse, or `failed` for text that is not JSON (an invalid escape, a control character in a string). */
function parseJson(text: string, failed: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return failed;
  }
}

/**
 * The value of the top-level `"id"` key in the first bytes of a JSON object cut short, or undefined when the prefix
 * holds none (not an object, malformed, or the id not yet complete). Keys nested in `params` and text inside strings
 * do not count; the first top-level id wins. Only the bytes that decide the answer are parsed, so it is linear.
 */
export function findRequestId(prefix: string): unknown {
  let at = skipWhitespace(prefix, 0);
  if (prefix[at] !== '{') return undefined;
  for (;;) {
    at = skipWhitespace(prefix, at + 1);
    const keyEnd = prefix[at] === '"' ? stringEnd(prefix, at) : -1;
    if (keyEnd === -1) return undefined;
    const key = parseJson(prefix.slice(at, keyEnd), undefined); // decodes escapes: "\u0069d" is "id" to any parser
    if (key === undefined) return undefined;
    at = skipWhitespace(prefix, keyEnd);
    if (prefix[at] !== ':') return undefined;
    at = skipWhitespace(prefix, at + 1);
    const end = valueEnd(prefix, at);
    if (end === -1) return undefined;
    if (key === 'id') return parseJson(prefix.slice(at, end), undefined);
    at = skipWhitespace(prefix, end);
    if (prefix[at] !== ',') return undefined;
  }
}

/** What to do with one line of stdin (no newline). Pure, so each kind of garbage is tested with plain strings. */
export function checkLine(line: string): LineVerdict {
  if (line.trim() === '') return { pass: false }; // blank lines between messages are harmless: skip them
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      pass: false,
      reply: errorReply(
        ErrorCode.ParseError,
        `Parse error: ${(error as Error).message}; send one JSON-RPC 2.0 message per line, e.g. ${example}`,
      ),
    };
  }
  const checked = JSONRPCMessageSchema.safeParse(value);
  if (checked.success) return { pass: true, message: checked.data };
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return {
    pass: false,
    reply: errorReply(
      ErrorCode.InvalidRequest,
      `Invalid Request: expected a JSON-RPC 2.0 object with "jsonrpc":"2.0" and a string "method", e.g. ${example}`,
      id,
    ),
  };
}

/** Where the guard sends what it read: each message that passed, and each error response for one that did not. */
export interface LineGuardHandlers {
  message(message: JSONRPCMessage): void;
  reply(line: string): void;
}

/**
 * Splits the bytes of stdin into lines and hands on only well-formed JSON-RPC messages, each parsed and checked
 * once. The SDK's stdio transport drops a line that is not JSON-RPC without a word (the client waits for an answer
 * that never comes) and closes the connection, ending every session, on a line over its size limit. Here the first
 * gets its JSON-RPC error response (-32700, -32600) and the second is skipped with one, while the connection and its
 * sessions live on.
 */
export class JsonRpcLineGuard {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set once the current line is over the limit: its first bytes, kept to find its id in. */
  private oversizedHead: Buffer | undefined;

  constructor(
    private readonly handlers: LineGuardHandlers,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  /** The next bytes of input: every line they complete is handed on (or answered) before this returns. */
  write(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.collect(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.collect(chunk.subarray(start));
  }

  /**
   * Bytes of the current line; once over the limit only its first ID_SCAN_BYTES (at most the limit) are kept, and the
   * rest is dropped until its newline.
   */
  private collect(part: Buffer): void {
    if (this.oversizedHead) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxMessageBytes) {
      this.oversizedHead = Buffer.concat(this.pending, Math.min(ID_SCAN_BYTES, this.maxMessageBytes));
      this.pending = [];
    }
  }

  private endLine(): void {
    // A line that came in one chunk (the usual case) is read where it lies, not copied.
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const head = this.oversizedHead;
    this.pending = [];
    this.pendingBytes = 0;
    this.oversizedHead = undefined;
    if (head) {
      // A character cut at the end of the head decodes to U+FFFD, which only a value left incomplete can hold.
      const id = findRequestId(head.toString('utf8'));
      this.handlers.reply(
        errorReply(
          ErrorCode.InvalidRequest,
          `Message dropped: longer than ${this.maxMessageBytes} bytes; send smaller messages`,
          id,
        ),
      );
      return;
    }
    // Invalid UTF-8 becomes U+FFFD, as it did in the SDK's transport.
    const verdict = checkLine(line.toString('utf8'));
    if (verdict.pass) this.handlers.message(verdict.message);
    else if (verdict.reply) this.handlers.reply(verdict.reply);
  }
}
