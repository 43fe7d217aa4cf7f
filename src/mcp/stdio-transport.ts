import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/server';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { JsonRpcLineGuard, MCP_MAX_MESSAGE_BYTES } from './line-guard.js';

/**
 * MCP over a byte stream each way, one JSON-RPC message per line, as the SDK's StdioServerTransport does it, with the
 * line guard built in: a line is parsed and checked against the JSON-RPC schema once, and the message that check
 * produced goes to the server in the same turn. Fed through the guard, the SDK's transport read every line a second
 * time (a Transform hop, a copy, JSON.parse and the schema again) before the server saw it.
 */
export class StdioLineTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];
  private readonly guard: JsonRpcLineGuard;
  private started = false;
  private readonly onData = (chunk: Buffer) => this.guard.write(chunk);
  private readonly onInputError = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    maxMessageBytes = MCP_MAX_MESSAGE_BYTES,
  ) {
    this.guard = new JsonRpcLineGuard(
      {
        message: (message) => this.deliver(message),
        // Garbage and over-long lines get their error response here; the connection lives on.
        reply: (line) => void this.output.write(`${line}\n`),
      },
      maxMessageBytes,
    );
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioLineTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
  }

  /**
   * One write per message; resolves once the stream took it (at once on a pipe), after 'drain', or when the stream
   * failed: a pipe whose reader is gone (EPIPE) never drains, and an answer left pending there held every shutdown
   * for its grace periods (4 s) after the client had gone.
   */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const output = this.output;
      if (output.write(`${JSON.stringify(message)}\n`) || output.destroyed || output.errored) return resolve();
      const done = () => {
        for (const event of ['drain', 'error', 'close']) output.off(event, done);
        resolve();
      };
      for (const event of ['drain', 'error', 'close']) output.once(event, done);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    // Paused only when nobody else reads it, as the SDK's transport does.
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.onclose?.();
  }

  /** A handler that throws is reported, as the SDK's transport does, and the next line is still read. */
  private deliver(message: JSONRPCMessage): void {
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
