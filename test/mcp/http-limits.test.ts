// Server-wide limits of `serve`: slow senders, too many connections, too many MCP clients.
import { describe, expect, it, vi } from 'vitest';
import { startServe } from './cli-process.js';
import { structuredOf } from './client-scenarios.js';
import { TEST_TOKEN, TOKEN_ENV, connectHttp, rawInitialize, rawToolCall } from './http-client.js';
import { rawSocket, whileFlooded, type RawSocket } from '../helpers/connections.js';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';

/** Slowloris: a request line, then one header byte every `everyMs`, never the blank line that ends the headers. */
function slowSender(port: number, everyMs: number): Promise<RawSocket> {
  return rawSocket(port, ({ socket }) => {
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
    const drip = setInterval(() => socket.write('a'), everyMs);
    socket.once('close', () => clearInterval(drip));
  });
}

/** A connection the server has surely accepted (it answered one request), then held open by a partial second one. */
async function heldConnection(port: number): Promise<RawSocket> {
  const raw = await rawSocket(port, ({ socket }) =>
    socket.write(`GET /held HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`),
  );
  await vi.waitFor(() => expect(raw.received).toMatch(/^HTTP\/1\.1 \d{3}/), { timeout: 10_000 });
  raw.socket.write('GET /held HTTP/1.1\r\nX-Held: ');
  return raw;
}

async function echoes(url: string): Promise<void> {
  const { client } = await connectHttp(url);
  try {
    const result = await client.callTool({
      name: 'exec_command',
      arguments: { cmd: 'echo ok', login: false, tty: false, yield_time_ms: 5_000 },
    });
    expect(structuredOf<{ output: string }>(result).output).toBe('ok\n');
  } finally {
    await client.close();
  }
}

describe('serve: connection limits', () => {
  it('closes connections that send their headers too slowly, while a normal client runs commands', async () => {
    const server = await startServe(['--structured-output', '--headers-timeout-s', '2'], TOKEN_ENV);
    const slow: RawSocket[] = [];
    try {
      for (let i = 0; i < 20; i++) slow.push(await slowSender(server.port, 300));
      await echoes(server.url);
      await vi.waitFor(() => expect(slow.filter((s) => s.closedAt === undefined)).toHaveLength(0), {
        timeout: 15_000,
        interval: 100,
      });
      for (const s of slow) {
        // After the 2 s headers timeout (checked every second), not at once and not after Node's default 60 s.
        expect(s.closedAt! - s.connectedAt).toBeGreaterThan(1_500);
        expect(s.closedAt! - s.connectedAt).toBeLessThan(6_000);
        expect(s.received).toMatch(/^HTTP\/1\.1 408 /);
      }
      await echoes(server.url);
    } finally {
      for (const s of slow) s.socket.destroy();
      await server.stop();
    }
  }, 60_000);

  it('refuses connections beyond --max-connections at once, and serves again once the held ones time out', async () => {
    const server = await startServe(['--structured-output', '--max-connections', '8'], TOKEN_ENV);
    const held: RawSocket[] = [];
    try {
      for (let i = 0; i < 8; i++) held.push(await heldConnection(server.port));
      // The default 5 s headers timeout keeps the eight held while the ninth knocks.
      const extra = await rawSocket(server.port, () => undefined);
      await vi.waitFor(() => expect(extra.closedAt).toBeDefined(), { timeout: 3_000, interval: 10 });
      expect(extra.received).toBe('');
      expect(extra.closedAt! - extra.connectedAt).toBeLessThan(1_000);
      expect(held.filter((h) => h.closedAt !== undefined)).toHaveLength(0);
      // Nobody frees them but the headers timeout; then a normal client gets in.
      await vi.waitFor(() => expect(held.filter((h) => h.closedAt === undefined)).toHaveLength(0), {
        timeout: 15_000,
        interval: 100,
      });
      await echoes(server.url);
    } finally {
      for (const h of held) h.socket.destroy();
      await server.stop();
    }
  }, 60_000);
});

describe('serve: connections without the token', () => {
  it.each([
    ['fetch the live view’s public files, keep-alive', 'static'],
    ['connect and send nothing', 'silent'],
  ] as const)(
    'lets the token holder run a command while another user holds --max-connections connections that %s',
    async (_, mode) => {
      const server = await startServe(['--structured-output', '--max-connections', '16'], TOKEN_ENV);
      try {
        await whileFlooded(server.port, 16, mode, () => echoes(server.url));
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it.skipIf(CANNOT_SWITCH_USER !== undefined)(
    'keeps a token holder’s connection that sends its request 1 s after connecting, while another user’s flood of silent connections reopens every one closed',
    async () => {
      const server = await startServe(['--structured-output', '--max-connections', '16'], TOKEN_ENV);
      try {
        const request = `GET /view/api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`;
        const slow = await whileFlooded(server.port, 16, 'silent', async () => {
          // A client slow to write (a busy machine): meanwhile the flood reopens each connection its arrival closed,
          // and each reopening closes another.
          const raw = await rawSocket(server.port, ({ socket }) => setTimeout(() => socket.write(request), 1_000));
          await vi.waitFor(() => expect(raw.received || raw.closedAt).toBeTruthy(), { timeout: 10_000, interval: 20 });
          return raw;
        });
        expect(slow.received).toMatch(/^HTTP\/1\.1 200 [^]*"sessions"/);
        slow.socket.destroy();
        // The flood did churn: the log's count of closed connections, printed 5 s after the first.
        await vi.waitFor(() => expect(server.stderr()).toMatch(/closed \d+ connection\(s\) without the token/), {
          timeout: 10_000,
        });
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it('answers a request without the token once, then closes; a connection that carried it stays open', async () => {
    const server = await startServe(['--structured-output', '--structured-output'], TOKEN_ENV);
    const request = (path: string, auth: boolean) =>
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${auth ? `Authorization: Bearer ${TEST_TOKEN}\r\n` : ''}\r\n`;
    const opened: RawSocket[] = [];
    try {
      for (const [path, status] of [
        ['/view/view.css', 200],
        ['/mcp', 401],
      ] as const) {
        const raw = await rawSocket(server.port, ({ socket }) => socket.write(request(path, false)));
        opened.push(raw);
        await vi.waitFor(() => expect(raw.closedAt).toBeDefined(), { timeout: 5_000, interval: 20 });
        expect(raw.received).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [^]*\r\nConnection: close\r\n`, 'i'));
      }
      const kept = await rawSocket(server.port, ({ socket }) => socket.write(request('/view/api/sessions', true)));
      opened.push(kept);
      await vi.waitFor(() => expect(kept.received).toMatch(/^HTTP\/1\.1 200 [^]*"sessions"/), { timeout: 5_000 });
      // Once it carried the token, the public files come over it too, and it stays open for more.
      kept.socket.write(request('/view/view.css', false));
      await vi.waitFor(() => expect(kept.received.match(/HTTP\/1\.1 200 /g)).toHaveLength(2), { timeout: 5_000 });
      expect(kept.received).not.toMatch(/connection: close/i);
      expect(kept.closedAt).toBeUndefined();
    } finally {
      for (const raw of opened) raw.socket.destroy();
      await server.stop();
    }
  }, 30_000);
});

describe('serve: --max-clients', () => {
  it('at the cap, a new client ends an idle one that holds no session, never one that does', async () => {
    const server = await startServe(['--structured-output', '--max-clients', '2'], TOKEN_ENV);
    try {
      const a = await connectHttp(server.url);
      const started = await a.client.callTool({
        name: 'exec_command',
        arguments: { cmd: 'sleep 600', login: false, tty: false, yield_time_ms: 250 },
      });
      const sessionId = structuredOf<{ session_id: number }>(started).session_id;
      // Initialize-only: it still takes a place.
      const b = await connectHttp(server.url);
      const c = await connectHttp(server.url);
      await vi.waitFor(() =>
        expect(server.stderr()).toContain(`client ${b.transport.sessionId} ended: least recently active of 2 clients`),
      );
      await expect(b.client.callTool({ name: 'list_sessions', arguments: {} })).rejects.toThrow(/Session not found/);
      const { sessions } = structuredOf<{ sessions: Array<{ session_id: number }> }>(
        await a.client.callTool({ name: 'list_sessions', arguments: {} }),
      );
      expect(sessions.map((s) => s.session_id)).toEqual([sessionId]);
      expect(structuredOf(await c.client.callTool({ name: 'list_sessions', arguments: {} }))).toEqual({ sessions: [] });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('at the cap with every client in a call, answers a new one 503 with Retry-After', async () => {
    const server = await startServe(['--structured-output', '--max-clients', '1'], TOKEN_ENV);
    try {
      const a = await connectHttp(server.url);
      const started = await a.client.callTool({
        name: 'exec_command',
        arguments: { cmd: 'sleep 600', login: false, tty: false, yield_time_ms: 250 },
      });
      const sessionId = structuredOf<{ session_id: number }>(started).session_id;
      const poll = await rawToolCall(server.url, a, 9, 'write_stdin', {
        session_id: sessionId,
        chars: '',
        yield_time_ms: 30_000,
      });
      expect(poll.status).toBe(200);
      const refused = await rawInitialize(server.url, 42);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.parse(refused.body)).toMatchObject({
        jsonrpc: '2.0',
        id: 42,
        error: { code: -32000, message: expect.stringMatching(/busy: 1 MCP client sessions are open/) },
      });
      // The busy client was left alone.
      expect(structuredOf(await a.client.callTool({ name: 'list_sessions', arguments: {} }))).toMatchObject({
        sessions: [{ session_id: sessionId }],
      });
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('sessions across the clients of one serve', () => {
  it('holds --max-sessions across clients: a client at the cap with none of its own is refused, never pruning others', async () => {
    const server = await startServe(['--structured-output', '--max-sessions', '2'], TOKEN_ENV);
    const a = await connectHttp(server.url);
    const b = await connectHttp(server.url);
    try {
      const open = async (client: typeof a.client) =>
        client.callTool({
          name: 'exec_command',
          arguments: { cmd: 'sleep 600', login: false, tty: false, yield_time_ms: 250 },
        });
      const held = [
        structuredOf<{ session_id: number }>(await open(a.client)).session_id,
        structuredOf<{ session_id: number }>(await open(a.client)).session_id,
      ];
      const refused = await open(b.client);
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toBe(
        'exec_command failed for `sleep 600`: The server holds 2 live sessions across clients (limit 2); try again when other clients have closed some',
      );
      const listed = structuredOf<{ sessions: Array<{ session_id: number }> }>(
        await a.client.callTool({ name: 'list_sessions', arguments: {} }),
      );
      expect(listed.sessions.map((s) => s.session_id)).toEqual(held);
    } finally {
      await a.client.close();
      await b.client.close();
      await server.stop();
    }
  });
});
