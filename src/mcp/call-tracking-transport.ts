import type { Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { OpenCalls, shutdownError } from './open-calls.js';
import { waitAtMost } from '../util/delay.js';

/**
 * The id of a request (a message with a method and an id), else undefined. Read from the message's shape, not checked
 * against the schema again: what comes in was checked already, and the JSON-RPC shapes are strict (only a request
 * has both `method` and `id`). A second zod pass per message cost more than the rest of the tracking.
 */
export function requestIdOf(message: JSONRPCMessage): RequestId | undefined {
  return 'method' in message && 'id' in message ? message.id : undefined;
}

/** The id a response (a message with `result` or `error`, and no method) answers, else undefined. */
export function answeredIdOf(message: JSONRPCMessage): RequestId | undefined {
  return !('method' in message) && ('result' in message || 'error' in message) ? message.id : undefined;
}

/** The id of the request a `notifications/cancelled` gives up, else undefined. */
export function cancelledIdOf(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}

/**
 * Wraps a transport to know which requests it received and has not answered yet, so that a shutdown can wait for
 * their answers and answer the rest itself: the SDK's server drops the answer of a call still running when it closes.
 */
export class CallTrackingTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];
  private readonly calls = new OpenCalls<RequestId>();
  private readonly answeredOnShutdown = new Set<RequestId>();

  constructor(private readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      const id = requestIdOf(message);
      if (id !== undefined) this.calls.add(id, [id]);
      // A cancelled call is never answered (the SDK drops its result): it is open no longer.
      const cancelledId = cancelledIdOf(message);
      if (cancelledId !== undefined) this.calls.delete(cancelledId);
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answers = answeredIdOf(message);
    // Answered already by answerOpenCalls(): a second answer to one id would confuse the client.
    if (answers !== undefined && this.answeredOnShutdown.has(answers)) return;
    await this.inner.send(message, options);
    if (answers !== undefined) this.calls.delete(answers);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Gives open calls `graceMs` to answer; the rest are answered with a JSON-RPC error. */
  async answerOpenCalls(graceMs: number): Promise<void> {
    if (await this.calls.drained(graceMs)) return;
    const ids = this.calls.ids();
    for (const id of ids) {
      this.answeredOnShutdown.add(id);
      this.calls.delete(id);
    }
    // Bounded too: on a client that hung up, a send waits for a 'drain' that never comes.
    await waitAtMost(Promise.all(ids.map((id) => this.inner.send(shutdownError(id)).catch(() => undefined))), graceMs);
  }
}
