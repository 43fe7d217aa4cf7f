import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { OpenCalls, shutdownError } from './open-calls.js';
import { waitAtMost } from '../util/delay.js';

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
      if (isJSONRPCRequest(message)) this.calls.add(message.id, [message.id]);
      this.onmessage?.(message, extra);
    };
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    await this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answers = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
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
