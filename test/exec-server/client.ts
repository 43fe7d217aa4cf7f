// A small exec-server test client on a real `ws` WebSocket, and a fixture that starts our server in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import { decodeOutputFrame } from '../../src/exec-server/protocol.js';
import { ExecServer, type ExecServerOptions } from '../../src/exec-server/server.js';
import { listenWebSocket, type WebSocketListener } from '../../src/exec-server/ws-transport.js';

/**
 * The messages of one WebSocket message: a binary output frame as the `process/output` notifications it stands for,
 * each marked `binary: true`, with the count of chunks its frame held and its place among them; anything else parsed
 * as JSON.
 */
function parseMessages(data: Buffer, isBinary: boolean): Message[] {
  const chunks = isBinary ? decodeOutputFrame(data) : undefined;
  if (chunks === undefined) return [JSON.parse(data.toString('utf8')) as Message];
  return chunks.map(({ processId, seq, stream, bytes }, frameIndex) => ({
    method: 'process/output',
    params: { processId, seq, stream, chunk: bytes.toString('base64') },
    binary: true,
    frameChunks: chunks.length,
    frameIndex,
  }));
}

/** Any message the server sent. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = Record<string, any>;

export const PATIENT = { timeout: 10_000, interval: 10 };

export class TestClient {
  readonly received: Message[] = [];
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message | undefined) => void }[] = [];
  private readonly listeners: ((message: Message) => void)[] = [];
  private nextId = 1000;
  /** Resolves with the close code once the connection is gone. */
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      for (const message of parseMessages(data, isBinary)) {
        this.received.push(message);
        for (const listener of this.listeners) listener(message);
        this.waiters = this.waiters.filter((w) => {
          if (!w.match(message)) return true;
          w.resolve(message);
          return false;
        });
      }
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        for (const w of this.waiters.splice(0)) w.resolve(undefined);
        resolve(code);
      }),
    );
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new TestClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  /** Called with every message received from now on. */
  onMessage(listener: (message: Message) => void): void {
    this.listeners.push(listener);
  }

  /** `initialize` (+ `initialized`); returns the result. */
  async initialize(params: Message = { clientName: 'test' }): Promise<Message> {
    const result = await this.call('initialize', params);
    this.notify('initialized', {});
    return result;
  }

  send(message: Message): void {
    this.ws.send(JSON.stringify(message));
  }

  sendRaw(text: string, binary = false): void {
    this.ws.send(binary ? Buffer.from(text) : text, { binary });
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Sends a request and resolves with the whole response message. */
  request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<Message> {
    const response = this.waitFor((m) => m.id === id && !('method' in m), 15_000);
    this.send(params === undefined ? { id, method } : { id, method, params });
    return response;
  }

  /** The result, or a thrown Error carrying the JSON-RPC error's code and message. */
  async call(method: string, params?: unknown): Promise<Message> {
    const response = await this.request(method, params);
    if ('error' in response) {
      throw Object.assign(new Error(response.error.message), { code: response.error.code });
    }
    return response.result;
  }

  /** The first message (already received, or still to come) matching `match`. */
  waitFor(match: (m: Message) => boolean, timeoutMs = 10_000, includePast = true): Promise<Message> {
    const past = includePast ? this.received.find(match) : undefined;
    if (past) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          if (m) resolve(m);
          else reject(new Error('connection closed while waiting'));
        },
      });
    });
  }

  /** Waits for a process's notification, e.g. `closed`. */
  waitForEvent(event: 'output' | 'exited' | 'closed' | 'inputWait', processId: string, timeoutMs?: number) {
    return this.waitFor((m) => m.method === `process/${event}` && m.params?.processId === processId, timeoutMs);
  }

  /** Notifications about one process, in arrival order. */
  events(processId: string): Message[] {
    return this.received.filter((m) => typeof m.method === 'string' && m.params?.processId === processId);
  }

  /** Everything a process printed on the given streams, decoded. */
  output(processId: string, streams = ['stdout', 'stderr', 'pty']): string {
    return this.events(processId)
      .filter((m) => m.method === 'process/output' && streams.includes(m.params.stream))
      .map((m) => Buffer.from(m.params.chunk, 'base64').toString('utf8'))
      .join('');
  }

  close(): Promise<number> {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    return this.closed;
  }
}

/** A process/start params object for `bash -c script` in `cwd`. */
export function bash(processId: string, script: string, cwd: string, extra: Message = {}): Message {
  return {
    processId,
    argv: ['/bin/bash', '--noprofile', '--norc', '-c', script],
    cwd: `file://${cwd}`,
    env: { PATH: '/usr/bin:/bin' },
    tty: false,
    arg0: null,
    ...extra,
  };
}

export const decode = (chunk: string) => Buffer.from(chunk, 'base64').toString('utf8');

export interface ServerFixture {
  server: ExecServer;
  url: string;
  /** A fresh temporary directory, removed afterwards. */
  dir: string;
  /** A client, closed afterwards. */
  client(headers?: Record<string, string>): Promise<TestClient>;
}

/**
 * Per test: our server on 127.0.0.1 (a free port) and a temporary directory; afterwards every client is closed,
 * the server ends every process it started, and the directory goes.
 */
export function useExecServer(options: ExecServerOptions & { token?: string } = {}): () => Promise<ServerFixture> {
  let started: { server: ExecServer; listener: WebSocketListener; dir: string; clients: TestClient[] } | undefined;
  afterEach(async () => {
    if (started === undefined) return;
    const { server, listener, dir, clients } = started;
    started = undefined;
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
    await listener.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return async () => {
    const { token, ...serverOptions } = options;
    const server = new ExecServer({ log: () => undefined, ...serverOptions });
    const listener = await listenWebSocket(server, {
      host: '127.0.0.1',
      port: 0,
      ...(token !== undefined ? { token } : {}),
    });
    const dir = mkdtempSync(join(tmpdir(), 'exec-server-test-'));
    const clients: TestClient[] = [];
    started = { server, listener, dir, clients };
    return {
      server,
      url: listener.url,
      dir,
      client: async (headers) => {
        const client = await TestClient.open(listener.url, headers);
        clients.push(client);
        return client;
      },
    };
  };
}
