import {
  ErrorCode,
  JSONRPCMessageSchema,
  RequestIdSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { TopLevelIdScanner, scanTopLevelId } from '../util/json-id-scanner.js';

/** Longest MCP stdio message taken, in bytes: the SDK's own default. 1 MiB of `chars` escaped as JSON fits. */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
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

/**
 * The value of the top-level `"id"` key of a JSON object (or of its first bytes), or undefined when it holds no
 * complete one: see TopLevelIdScanner, which the guard also runs over the whole of an over-long line.
 */
export function findRequestId(text: string): unknown {
  return scanTopLevelId(text);
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
  /** Set once the current line is over the limit: its bytes go through this, to find its id, and are not kept. */
  private oversized: TopLevelIdScanner | undefined;

  constructor(
    private readonly handlers: LineGuardHandlers,
    private readonly maxMessageBytes = MCP_MAX_MESSAGE_BYTES,
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
   * Bytes of the current line; once over the limit none are kept: they are only scanned for the line's top-level id,
   * wherever it is (the SDK's client writes `id` after `params`), until its newline.
   */
  private collect(part: Buffer): void {
    if (this.oversized) return this.oversized.feed(part);
    this.pending.push(part);
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxMessageBytes) {
      this.oversized = new TopLevelIdScanner();
      for (const piece of this.pending) this.oversized.feed(piece);
      this.pending = [];
    }
  }

  private endLine(): void {
    // A line that came in one chunk (the usual case) is read where it lies, not copied.
    const line = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    const oversized = this.oversized;
    this.pending = [];
    this.pendingBytes = 0;
    this.oversized = undefined;
    if (oversized) {
      this.handlers.reply(
        errorReply(
          ErrorCode.InvalidRequest,
          `Message dropped: longer than ${this.maxMessageBytes} bytes; send smaller messages`,
          oversized.id,
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
