import { Transform, type TransformCallback } from 'node:stream';
import { ErrorCode, JSONRPCMessageSchema, RequestIdSchema } from '@modelcontextprotocol/sdk/types.js';

/** Longest stdio message taken, in bytes: the SDK's own default. 1 MiB of `chars` escaped as JSON fits. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface LineVerdict {
  /** Pass the line on to the transport. */
  pass: boolean;
  /** A JSON-RPC error response to send back instead, as one line of JSON. */
  reply?: string;
}

const example = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

function errorReply(code: number, message: string, id?: unknown): string {
  const valid = RequestIdSchema.safeParse(id);
  return JSON.stringify({ jsonrpc: '2.0', ...(valid.success ? { id: valid.data } : {}), error: { code, message } });
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
  if (JSONRPCMessageSchema.safeParse(value).success) return { pass: true };
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

/**
 * Sits between stdin and the SDK's stdio transport and passes on only well-formed JSON-RPC lines. The transport
 * drops a line that is not JSON-RPC without a word (the client waits for an answer that never comes) and closes the
 * connection, ending every session, on a line over its size limit. Here the first gets its JSON-RPC error response
 * (-32700, -32600) and the second is skipped with one, while the connection and its sessions live on.
 */
export class JsonRpcLineGuard extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private oversized = false;

  constructor(
    private readonly reply: (line: string) => void,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.collect(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.collect(chunk.subarray(start));
    done();
  }

  /** Bytes of the current line; once over the limit they are counted no more, just dropped until its newline. */
  private collect(part: Buffer): void {
    if (this.oversized) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxMessageBytes) {
      this.oversized = true;
      this.pending = [];
      return;
    }
    this.pending.push(part);
  }

  private endLine(): void {
    const line = Buffer.concat(this.pending);
    const oversized = this.oversized;
    this.pending = [];
    this.pendingBytes = 0;
    this.oversized = false;
    if (oversized) {
      this.reply(
        errorReply(
          ErrorCode.InvalidRequest,
          `Message dropped: longer than ${this.maxMessageBytes} bytes; send smaller messages`,
        ),
      );
      return;
    }
    // Decoded only to check it: invalid UTF-8 becomes U+FFFD here just as it does in the transport.
    const verdict = checkLine(line.toString('utf8'));
    if (verdict.pass) this.push(Buffer.concat([line, Buffer.from('\n')]));
    else if (verdict.reply) this.reply(verdict.reply);
  }
}
