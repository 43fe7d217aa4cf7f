// An SDK client for a `serve` a test started, and raw HTTP for what the SDK client hides (the stream of one call).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Passed as UNIFIED_EXEC_TOKEN: works whether `serve` makes up a token by default or takes none. */
export const TEST_TOKEN = 'in-flight-test-token-0123456789';
export const TOKEN_ENV = { UNIFIED_EXEC_TOKEN: TEST_TOKEN };
const AUTH = { authorization: `Bearer ${TEST_TOKEN}` };

export interface HttpConnection {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function connectHttp(url: string): Promise<HttpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: AUTH } });
  const client = new Client({ name: 'http-limits-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

interface JsonRpcMessage {
  id?: number | string;
  result?: { structuredContent?: Record<string, unknown>; isError?: boolean };
  error?: { code: number; message: string };
}

export interface RawCall {
  /** Resolves once the server answered with headers, i.e. it has taken the call. */
  status: number;
  /** Every JSON-RPC message of the reply, or how the connection broke. */
  messages(): Promise<{ messages: JsonRpcMessage[]; bytes: number; broken?: string }>;
}

/** One tools/call over its own POST, on the client session of `connection`. */
export async function rawToolCall(
  url: string,
  connection: HttpConnection,
  id: number,
  name: string,
  args: Record<string, unknown>,
  /** Aborting it drops the call's connection. */
  signal?: AbortSignal,
): Promise<RawCall> {
  const res = await fetch(url, {
    ...(signal ? { signal } : {}),
    method: 'POST',
    headers: {
      ...AUTH,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': connection.transport.sessionId ?? '',
      'mcp-protocol-version': connection.transport.protocolVersion ?? '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  return {
    status: res.status,
    messages: async () => {
      let text = '';
      let broken: string | undefined;
      try {
        text = await res.text();
      } catch (error) {
        broken = String((error as Error).cause ?? error);
      }
      const payloads = res.headers.get('content-type')?.includes('text/event-stream')
        ? text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice('data: '.length))
        : [text].filter((t) => t !== '');
      return {
        messages: payloads.map((p) => JSON.parse(p) as JsonRpcMessage),
        bytes: Buffer.byteLength(text),
        ...(broken === undefined ? {} : { broken }),
      };
    },
  };
}

/** A bare initialize POST: what a client at the cap is told, headers included. */
export async function rawInitialize(
  url: string,
  id: number,
): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}
