// The WebSocket layer: bearer auth with Codex's 401 texts, plain HTTP and browsers refused, the 16 MiB frame
// limit, and that no bad message ever drops a connection; plus the session and process caps.
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ExecServer } from '../../src/exec-server/server.js';
import { serveStdio } from '../../src/exec-server/stdio-transport.js';
import { bash, useExecServer, type Message } from './client.js';

const TOKEN = 'sekrit-token-0123456789';
const start = useExecServer();
const startWithToken = useExecServer({ token: TOKEN });
const startCapped = useExecServer({ maxProcessesPerSession: 2, maxProcesses: 3, maxExecServerSessions: 2 });

/** The HTTP status and body of a refused handshake. */
function refused(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('the handshake was accepted')));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('exec-server WebSocket transport', () => {
  it("asks for the bearer token with Codex's exact 401 texts, and lets the right one in", async () => {
    const { url, client } = await startWithToken();
    expect(await refused(url, {})).toEqual({ status: 401, body: 'missing websocket bearer token' });
    expect(await refused(url, { Authorization: 'Bearer wrong' })).toEqual({
      status: 401,
      body: 'invalid websocket bearer token',
    });
    expect(await refused(url, { Authorization: TOKEN })).toEqual({ status: 401, body: 'invalid authorization header' });
    const c = await client({ Authorization: `Bearer ${TOKEN}` });
    await c.initialize();
    expect(await c.call('environment/status', {})).toEqual({ status: 'ready' });
  });

  it('answers plain HTTP with 400, and refuses browsers (an Origin header) with 403', async () => {
    const { url } = await start();
    const http = url.replace('ws://', 'http://');
    const plain = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      request(http, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on('error', reject)
        .end();
    });
    expect(plain).toEqual({ status: 400, body: "Connection header did not include 'upgrade'" });
    expect((await refused(url, { Origin: 'https://evil.example' })).status).toBe(403);
  });

  it('takes a frame under 16 MiB and closes the connection that sends a bigger one', async () => {
    const { client } = await start();
    const c = await client();
    await c.initialize();
    const pad = 'x'.repeat(15 * 1024 * 1024);
    expect((await c.request('environment/status', { pad })).result).toEqual({ status: 'ready' });
    c.sendRaw(JSON.stringify({ id: 2, method: 'environment/status', params: { pad: pad + pad } }));
    expect(await c.closed).toBe(1009);
  });

  it('never drops a connection over a bad message: each gets an error or is ignored', async () => {
    const { client } = await start();
    const c = await client();
    await c.initialize();
    for (const text of ['{not json', '[1,2]', '"text"', '{"id":null,"method":"environment/status"}', '{"id":9}']) {
      c.sendRaw(text);
    }
    c.notify('bogus/notify', {});
    c.send({ id: 99, result: {} });
    c.send({ id: 98, error: { code: 1, message: 'x' } });
    c.send({ id: 97, method: 42 });
    expect((await c.request('no/such', {})).error).toEqual({
      code: -32601,
      message: 'unified-exec exec-server does not implement `no/such`',
    });
    expect(await c.call('environment/status')).toEqual({ status: 'ready' });
    const errors = c.received.filter((m) => m.id === -1);
    expect(errors.map((m) => m.error.code)).toEqual([-32600, -32600, -32600, -32600, -32600, -32600]);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('caps processes per session and server-wide, and sessions', async () => {
    const { dir, client } = await startCapped();
    const a = await client();
    await a.initialize();
    await a.call('process/start', bash('s1', 'sleep 30', dir));
    await a.call('process/start', bash('s2', 'sleep 30', dir));
    await expect(a.call('process/start', bash('s3', 'sleep 30', dir))).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^too many processes in this exec-server session: 2 have not closed yet/),
    });
    const b = await client();
    await b.initialize();
    await b.call('process/start', bash('s1', 'sleep 30', dir));
    await expect(b.call('process/start', bash('s2', 'sleep 30', dir))).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^too many processes on this exec-server: 3 have not closed yet/),
    });
    // A closed process no longer counts.
    await a.call('process/terminate', { processId: 's1' });
    await a.waitForEvent('closed', 's1');
    await a.call('process/start', bash('s3', 'true', dir));
    // Two sessions held, both attached: a third is refused; once one is detached, it makes room.
    const third = await client();
    await expect(third.call('initialize', { clientName: 'c' })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(/^too many exec-server sessions: 2 are attached/),
    });
    const bSession = b.received.find((m) => m.result?.sessionId)!.result.sessionId;
    await b.close();
    await third.initialize();
    const again = await client();
    await expect(again.call('initialize', { clientName: 'b', resumeSessionId: bSession })).rejects.toMatchObject({
      code: -32600,
      message: `unknown session id ${bSession}`,
    });
  });
});

describe('exec-server stdio transport', () => {
  it('answers a line per message, refuses a line over 16 MiB with -32600 and its id, wherever it is, and goes on', async () => {
    const server = new ExecServer({ log: () => undefined });
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Message[] = [];
    let pending = '';
    output.on('data', (d: Buffer) => {
      pending += d.toString();
      const parts = pending.split('\n');
      pending = parts.pop()!;
      lines.push(...parts.map((l) => JSON.parse(l) as Message));
    });
    const done = serveStdio(server, { input, output });
    input.write('{"id":1,"method":"initialize","params":{"clientName":"s"}}\n{"method":"initialized"}\n');
    const pad = 'x'.repeat(17 * 1024 * 1024);
    input.write(`{"id":2,"method":"environment/status","params":{"pad":"${pad}"}}\n`);
    // Its id last, past nested "id" keys and a string holding "id":, and written in pieces: answered with that id.
    const late = `{"method":"fs/writeFile","params":{"id":7,"a":[{"id":8}],"s":"\\"id\\":9","pad":"${pad}"},"id":"w-4"}\n`;
    for (let at = 0; at < late.length; at += 1024 * 1024) input.write(late.slice(at, at + 1024 * 1024));
    input.write(`{"id":null,"method":"environment/status","params":{"pad":"${pad}"}}\n`);
    input.write('{"id":3,"method":"environment/status"}\r\n');
    // Requests run concurrently: answers may come in any order.
    await vi.waitFor(() => expect(lines.map((l) => String(l.id)).sort()).toEqual(['-1', '1', '2', '3', 'w-4']), {
      timeout: 10_000,
    });
    for (const id of [-1, 2, 'w-4']) expect(lines.find((l) => l.id === id)!.error.code).toBe(-32600);
    expect(lines.find((l) => l.id === 3)!.result).toEqual({ status: 'ready' });
    input.end();
    await done;
    await server.close();
  });

  it('keeps output in base64 JSON for a client that asks for binary frames: a line has no binary frame', async () => {
    const server = new ExecServer({ log: () => undefined });
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (d: Buffer) => (text += d.toString()));
    const lines = () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Message);
    const done = serveStdio(server, { input, output });
    input.write('{"id":1,"method":"initialize","params":{"clientName":"s","unifiedExec":{"binaryOutput":true}}}\n');
    input.write('{"method":"initialized"}\n');
    input.write(
      '{"id":2,"method":"process/start","params":{"processId":"p","argv":["printf","hi"],"cwd":"file:///","env":{"PATH":"/usr/bin:/bin"},"tty":false}}\n',
    );
    await vi.waitFor(() => expect(lines().some((l) => l.method === 'process/closed')).toBe(true), { timeout: 10_000 });
    expect(lines().find((l) => l.id === 1)!.result.unifiedExec).not.toHaveProperty('binaryOutput');
    expect(lines().find((l) => l.method === 'process/output')!.params).toEqual({
      processId: 'p',
      seq: 1,
      stream: 'stdout',
      chunk: Buffer.from('hi').toString('base64'),
    });
    input.end();
    await done;
    await server.close();
  });
});
