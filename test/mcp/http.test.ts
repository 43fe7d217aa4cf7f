import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readExecText } from '../helpers/exec-text.js';
import { isAlive, runCli, startServe, type ServeProcess } from './cli-process.js';
import { defineClientScenarios, execTextOf, pidOfSession, textOf } from './client-scenarios.js';

/** `serve` makes a random token unless given one: the tests give this one, through the environment. */
const TOKEN = 'http-test-token-0123456789';
const TOKEN_ENV = { UNIFIED_EXEC_TOKEN: TOKEN };

async function connect(url: string, token: string = TOKEN) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: 'http-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** A raw POST to 127.0.0.1 with whatever headers a test needs (fetch will not let us forge Host). */
function rawPost(port: number, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        // An accepted initialize may answer with an event stream that stays open: the status is enough.
        if (res.statusCode === 200) {
          resolve({ status: 200, body: '' });
          res.destroy();
        }
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function sessionPid(client: Client, cmd = 'sleep 600'): Promise<{ sessionId: number; pid: number }> {
  const started = await client.callTool({ name: 'exec_command', arguments: { cmd, yield_time_ms: 250 } });
  const sessionId = execTextOf(started).sessionId!;
  return { sessionId, pid: await pidOfSession(client, sessionId) };
}

describe('unified-exec serve (Streamable HTTP) with the SDK client', () => {
  let server: ServeProcess;
  let connection: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    server = await startServe([], TOKEN_ENV);
    connection = await connect(server.url);
  });
  afterAll(async () => {
    await connection?.client.close();
    const exit = await server?.stop();
    expect(exit).toEqual({ code: 0, signal: null });
  });

  it('prints its URL on 127.0.0.1 and copy-paste lines for Codex CLI and Claude Code', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/mcp`);
    expect(server.port).toBeGreaterThan(0);
    const out = server.stdout();
    expect(out).toContain(`codex mcp add unified-exec --url ${server.url}`);
    expect(out).toContain(`[mcp_servers.unified-exec]\n    url = "${server.url}"`);
    expect(out).toContain(`claude mcp add --transport http unified-exec ${server.url}`);
  });

  defineClientScenarios(() => connection.client);

  it('keeps one client session from seeing or touching another', async () => {
    const a = await connect(server.url);
    const b = await connect(server.url);
    try {
      const { sessionId, pid } = await sessionPid(a.client);

      const listedByB = textOf(await b.client.callTool({ name: 'list_sessions', arguments: {} }));
      expect(listedByB).toBe('No sessions are open.');
      const writeByB = await b.client.callTool({
        name: 'write_stdin',
        arguments: { session_id: sessionId, chars: '' },
      });
      expect(writeByB.isError).toBe(true);
      expect(textOf(writeByB)).toBe(`write_stdin failed: Unknown process id ${sessionId}`);
      const closeByB = await b.client.callTool({ name: 'close_session', arguments: { session_id: sessionId } });
      expect(textOf(closeByB)).toBe(`close_session failed: Unknown process id ${sessionId}`);
      expect(isAlive(pid)).toBe(true);

      // Ending A's MCP session (an HTTP DELETE) ends A's processes, and only A's.
      const { pid: pidOfB } = await sessionPid(b.client);
      await a.transport.terminateSession();
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
      expect(isAlive(pidOfB)).toBe(true);
      await vi.waitFor(() =>
        expect(server.stderr()).toMatch(/ended: closed by the client; 1 exec session\(s\) closed/),
      );
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });

  // Claude Code 2.1.334 and 2.1.336 fixed a slow tool listing against servers that never acknowledge the
  // notification stream, and a spin against servers that ask for a zero retry delay: neither may be us.
  it('acknowledges the event stream at once, before any event, and never asks for a zero retry delay', async () => {
    // A client of raw requests: the SDK's client holds the one event stream a session may have.
    const post = (body: unknown, session?: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...(session === undefined ? {} : { 'mcp-session-id': session }),
        },
        body: JSON.stringify(body),
      });
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } };
    const initialized = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
    const session = initialized.headers.get('mcp-session-id') ?? '';
    expect(await initialized.text()).not.toMatch(/^retry:/m);
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const stream = new AbortController();
    try {
      // fetch resolves with the headers: the stream is open while the server has sent no event on it (its first,
      // a keep-alive comment, comes after 15 s).
      const opened = fetch(server.url, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'mcp-session-id': session },
        signal: stream.signal,
      });
      const unacknowledged = new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('no headers within 5 s: the stream waits for its first event')),
          5_000,
        ).unref(),
      );
      const res = await Promise.race([opened, unacknowledged]);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      // A call's own stream (with a progress token, the output comes as it runs) carries no retry field either.
      const args = { cmd: 'echo hi', login: false };
      const call = await post(
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'exec_command', arguments: args, _meta: { progressToken: 1 } },
        },
        session,
      );
      const text = await call.text();
      expect(text).toContain('Process exited with code 0');
      expect(text).not.toMatch(/^retry:/m);
    } finally {
      stream.abort();
      await fetch(server.url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session },
      });
    }
  });

  it('answers a request for an ended MCP session with 404', async () => {
    const c = await connect(server.url);
    await c.transport.terminateSession();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${TOKEN}`,
            'mcp-session-id': 'no-such-session',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    });
    expect(status).toBe(404);
    await c.client.close();
  });

  it('refuses a foreign Host header and a foreign Origin with 403', async () => {
    const foreignHost = await rawPost(server.port, { host: `attacker.example:${server.port}` });
    expect(foreignHost.status).toBe(403);
    expect(foreignHost.body).toContain('Host');
    const foreignOrigin = await rawPost(server.port, { origin: 'http://attacker.example' });
    expect(foreignOrigin.status).toBe(403);
    expect(foreignOrigin.body).toContain('Origin');
    // The same request from a loopback origin, and with localhost as Host, is fine.
    expect((await rawPost(server.port, { origin: `http://localhost:${server.port}` })).status).toBe(200);
    expect((await rawPost(server.port, { host: `localhost:${server.port}` })).status).toBe(200);
  });
});

describe('unified-exec serve lifetime and access', () => {
  it('ends every session of every client on SIGTERM', async () => {
    const server = await startServe([], TOKEN_ENV);
    const a = await connect(server.url);
    const b = await connect(server.url);
    const { pid: pidA } = await sessionPid(a.client);
    const { pid: pidB } = await sessionPid(b.client, 'sleep 601');
    expect(isAlive(pidA) && isAlive(pidB)).toBe(true);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    await vi.waitFor(() => expect([isAlive(pidA), isAlive(pidB)]).toEqual([false, false]), { timeout: 5_000 });
    await a.client.close().catch(() => undefined);
    await b.client.close().catch(() => undefined);
  });

  it('ends a client session that goes quiet, with its processes, after --idle-timeout-s', async () => {
    const server = await startServe(['--idle-timeout-s', '1'], TOKEN_ENV);
    const quiet = await connect(server.url);
    try {
      const { pid } = await sessionPid(quiet.client);
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000, interval: 100 });
      await vi.waitFor(() => expect(server.stderr()).toMatch(/ended: idle for over 1 s; 1 exec session\(s\) closed/));
    } finally {
      await quiet.client.close().catch(() => undefined);
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses to listen on a non-loopback address without a token', async () => {
    // Exits before binding: no traffic leaves loopback.
    const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--no-auth']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without a token/);
    expect(result.stdout).toBe('');
  });

  it('with a token, answers 401 to a request without the bearer and serves one with it', async () => {
    const token = 'another-s3cret-token-for-this-test';
    const server = await startServe(['--host', '127.0.0.1'], { UNIFIED_EXEC_TOKEN: token });
    try {
      const denied = await rawPost(server.port, { authorization: '' });
      expect(denied.status).toBe(401);
      expect((await rawPost(server.port, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await rawPost(server.port, { authorization: `Bearer ${TOKEN}` })).status).toBe(401);
      expect(server.stdout()).toContain(`--bearer-token-env-var UNIFIED_EXEC_TOKEN`);
      expect(server.stdout()).toContain(`--header "Authorization: Bearer $UNIFIED_EXEC_TOKEN"`);

      const { client } = await connect(server.url, token);
      const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
      expect(textOf(result)).toContain('hello');
      await client.close();
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });
});

describe('unified-exec serve --structured-output', () => {
  it('declares output schemas and answers with structuredContent beside the text, checked by the SDK', async () => {
    const server = await startServe(['--structured-output'], TOKEN_ENV);
    try {
      const { client } = await connect(server.url);
      const { tools } = await client.listTools();
      for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
      const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
      expect(result.structuredContent).toMatchObject({ output: 'hello\n', exit_code: 0, state: 'exited' });
      expect(readExecText(textOf(result))).toMatchObject({ output: 'hello\n', exitCode: 0 });
      await client.close();
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });
});

describe('startHttpServer (the library)', () => {
  it('refuses a token shorter than 16 bytes before it listens', async () => {
    const { startHttpServer } = await import('../../src/mcp/http-server.js');
    await expect(startHttpServer({ port: 0, token: 'fifteen-bytes!!' })).rejects.toThrow(
      'A token must be at least 16 bytes long',
    );
  });
});
