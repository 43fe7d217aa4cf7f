// An HTTP server with the live view, in this process, and MCP clients (the real SDK over HTTP) that start sessions
// on it; shared by the route tests and the browser test.
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer, type RunningHttpServer } from '../../src/mcp/http-server.js';
import { viewRoutes } from '../../src/view/view-routes.js';

export const TOKEN = 'view-test-token-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${TOKEN}` };

export interface ViewServer {
  server: RunningHttpServer;
  /** http://127.0.0.1:PORT */
  origin: string;
  clients: Client[];
  /** A new MCP client of this server, named `name` in its initialize request; closed by `close()`. */
  connect(name: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startViewServer(options: { input?: boolean; token?: boolean } = {}): Promise<ViewServer> {
  const withToken = options.token ?? true;
  const server = await startHttpServer({
    port: 0,
    ...(withToken ? { token: TOKEN } : {}),
    // The view's tests read what calls answered from the structured fields.
    structuredOutput: true,
    routes: (clients) => viewRoutes(clients, { input: options.input ?? false }),
  });
  const clients: Client[] = [];
  return {
    server,
    origin: `http://127.0.0.1:${server.port}`,
    clients,
    async connect(name) {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        ...(withToken ? { requestInit: { headers: AUTH } } : {}),
      });
      const client = new Client({ name, version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await server.close();
    },
  };
}

export interface Started {
  sessionId: number;
  pid: number;
  output: string;
}

/** exec_command with `login: false` (root's login shells are slow here), and the pid list_sessions gives for it. */
export async function startSession(client: Client, args: Record<string, unknown>): Promise<Started> {
  const result = await client.callTool({
    name: 'exec_command',
    arguments: { login: false, yield_time_ms: 500, ...args },
  });
  const reply = result.structuredContent as { session_id?: number; output: string };
  if (reply.session_id === undefined) throw new Error(`the command ended at once: ${JSON.stringify(reply)}`);
  const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
  const { sessions } = listed.structuredContent as { sessions: Array<{ session_id: number; pid: number }> };
  const pid = sessions.find((s) => s.session_id === reply.session_id)?.pid;
  if (pid === undefined) throw new Error(`session ${reply.session_id} has no pid in list_sessions`);
  return { sessionId: reply.session_id, pid, output: reply.output };
}

/** A raw request with any headers (fetch will not forge Host): status, headers and body. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface StreamEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A session's event stream read as the page reads it (fetch and a reader), events collected as they come. */
export class EventReader {
  readonly events: StreamEvent[] = [];
  /** Resolves when the server ended the stream. */
  readonly done: Promise<void>;
  private readonly abort = new AbortController();

  constructor(url: string, headers: Record<string, string> = AUTH) {
    this.done = this.read(url, headers);
  }

  /** Everything the `start` and `output` events carried so far. */
  text(): string {
    return this.events
      .map((e) => (e.event === 'start' ? e.data.recent : e.event === 'output' ? e.data.text : ''))
      .join('');
  }

  stop(): void {
    this.abort.abort();
  }

  private async read(url: string, headers: Record<string, string>): Promise<void> {
    const res = await fetch(url, { headers, signal: this.abort.signal });
    if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) this.events.push({ event, data: JSON.parse(data) });
        }
      }
    } catch (error) {
      if (!this.abort.signal.aborted) throw error;
    }
  }
}
