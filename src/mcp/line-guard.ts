import { ProtocolErrorCode, isSpecType, specTypeSchemas, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { scanTopLevelId } from '../util/json-id-scanner.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../util/json-depth.js';
import { JsonLineFramer } from '../util/json-lines.js';

/** Longest MCP stdio message taken, in bytes: the SDK's own default. 1 MiB of `chars` escaped as JSON fits. */
export const MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/**
 * A line passes as the message the schema check produced (the SDK's transport delivers the same), or is dropped,
 * with a JSON-RPC error response to send back as one line of JSON unless it was blank.
 */
export type LineVerdict = { pass: true; message: JSONRPCMessage } | { pass: false; reply?: string };

const example = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
/** Why a message nested too deep is refused (see MAX_JSON_DEPTH); the HTTP server says the same. */
export const TOO_DEEP = `the message nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;

function errorReply(code: number, message: string, id?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', ...(isSpecType.RequestId(id) ? { id } : {}), error: { code, message } });
}

/**
 * The value of the top-level `"id"` key of a JSON object (or of its first bytes), or undefined when it holds no
 * complete one: see TopLevelIdScanner, which the framer also runs over the whole of an over-long line.
 */
export function findRequestId(text: string): unknown {
  return scanTopLevelId(text);
}

/** What to do with one line of stdin (no newline). Pure, so each kind of garbage is tested with plain strings. */
export function checkLine(line: string): LineVerdict {
  if (line.trim() === '') return { pass: false }; // blank lines between messages are harmless: skip them
  if (nestsDeeperThan(line)) {
    return {
      pass: false,
      reply: errorReply(ProtocolErrorCode.ParseError, `Parse error: ${TOO_DEEP}`, scanTopLevelId(line)),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      pass: false,
      reply: errorReply(
        ProtocolErrorCode.ParseError,
        `Parse error: ${(error as Error).message}; send one JSON-RPC 2.0 message per line, e.g. ${example}`,
      ),
    };
  }
  const checked = specTypeSchemas.JSONRPCMessage['~standard'].validate(value);
  if (!checked.issues) return { pass: true, message: checked.value };
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return {
    pass: false,
    reply: errorReply(
      ProtocolErrorCode.InvalidRequest,
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
  private readonly framer: JsonLineFramer;

  constructor(
    private readonly handlers: LineGuardHandlers,
    private readonly maxMessageBytes = MCP_MAX_MESSAGE_BYTES,
  ) {
    this.framer = new JsonLineFramer(
      { line: (bytes) => this.line(bytes), oversized: (id) => this.oversized(id) },
      maxMessageBytes,
    );
  }

  /** The next bytes of input: every line they complete is handed on (or answered) before this returns. */
  write(chunk: Buffer): void {
    this.framer.write(chunk);
  }

  private line(bytes: Buffer): void {
    // Invalid UTF-8 becomes U+FFFD, as it did in the SDK's transport.
    const verdict = checkLine(bytes.toString('utf8'));
    if (verdict.pass) this.handlers.message(verdict.message);
    else if (verdict.reply) this.handlers.reply(verdict.reply);
  }

  /** An over-long line, skipped: answered with its id (the SDK's client writes `id` after `params`) when valid. */
  private oversized(id: unknown): void {
    this.handlers.reply(
      errorReply(
        ProtocolErrorCode.InvalidRequest,
        `Message dropped: longer than ${this.maxMessageBytes} bytes; send smaller messages`,
        id,
      ),
    );
  }
}
