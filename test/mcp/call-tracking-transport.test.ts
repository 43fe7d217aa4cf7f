import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  CallTrackingTransport,
  answeredIdOf,
  cancelledIdOf,
  requestIdOf,
} from '../../src/mcp/call-tracking-transport.js';

/** A transport that records what is sent and lets the test deliver messages. */
function fakeTransport(): { inner: Transport; sent: JSONRPCMessage[]; deliver: (m: JSONRPCMessage) => void } {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = {
    start: async () => undefined,
    send: async (message) => void sent.push(message),
    close: async () => undefined,
  };
  return { inner, sent, deliver: (m) => inner.onmessage?.(m) };
}

const request = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: {} });
const result = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });

describe('CallTrackingTransport', () => {
  it('passes messages both ways and waits for an open call to be answered', async () => {
    const { inner, sent, deliver } = fakeTransport();
    const transport = new CallTrackingTransport(inner);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    deliver(request(1));
    expect(received).toEqual([request(1)]);
    const answered = transport.answerOpenCalls(5_000);
    await transport.send(result(1));
    await answered;
    expect(sent).toEqual([result(1)]);
  });

  it('answers calls still open after the grace time with a JSON-RPC error, and drops their late answers', async () => {
    const { inner, sent, deliver } = fakeTransport();
    const transport = new CallTrackingTransport(inner);
    await transport.start();
    deliver(request(1));
    deliver(request(2));
    await transport.send(result(2));
    await transport.answerOpenCalls(20);
    await transport.send(result(1));
    expect(sent).toEqual([
      result(2),
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.stringMatching(/^Server shutting down/) } },
    ]);
  });

  it('counts a call the client cancelled as no longer open: a shutdown does not wait for it', async () => {
    const { inner, sent, deliver } = fakeTransport();
    const transport = new CallTrackingTransport(inner);
    await transport.start();
    deliver(request(1));
    deliver(cancel(1));
    const before = performance.now();
    await transport.answerOpenCalls(5_000);
    expect(performance.now() - before).toBeLessThan(1_000);
    expect(sent).toEqual([]);
  });
});

const cancel = (requestId: number | string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId },
});

describe('cancelledIdOf', () => {
  it('reads the request a cancellation gives up, and nothing from other messages', () => {
    expect(cancelledIdOf(cancel(7))).toBe(7);
    expect(cancelledIdOf(cancel('a'))).toBe('a');
    expect(cancelledIdOf(request(7))).toBeUndefined();
    expect(cancelledIdOf({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} })).toBeUndefined();
    expect(cancelledIdOf(result(7))).toBeUndefined();
  });
});

describe('requestIdOf and answeredIdOf', () => {
  const notification: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/progress', params: {} };
  const error: JSONRPCMessage = { jsonrpc: '2.0', id: 'a', error: { code: -32000, message: 'no' } };

  it('tell a request, which opens a call, from a notification, which does not', () => {
    expect(requestIdOf(request(4))).toBe(4);
    expect(requestIdOf(notification)).toBeUndefined();
    expect(requestIdOf(result(4))).toBeUndefined();
  });

  it('take results and errors as answers, and a request the server sends (elicitation) not', () => {
    expect(answeredIdOf(result(4))).toBe(4);
    expect(answeredIdOf(error)).toBe('a');
    expect(answeredIdOf(request(4))).toBeUndefined();
    expect(answeredIdOf(notification)).toBeUndefined();
  });
});
