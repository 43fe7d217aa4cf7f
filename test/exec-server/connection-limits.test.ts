// The exec-server's WebSocket listener against other local users: slow senders are cut off, and connections without
// the token, however many, cannot lock out the token holder or close its WebSocket.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { rawSocket, whileFlooded, within, type FloodMode, type RawSocket } from '../helpers/connections.js';
import { openFdCount } from '../reliability/harness.js';
import { BEARER, startWsServer } from './cli-process.js';
import { TestClient, bash } from './client.js';

const dir = mkdtempSync(join(tmpdir(), 'exec-server-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A whole WebSocket upgrade request without the token. */
const upgradeWithoutToken = (port: number) =>
  `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;

/** Half of a WebSocket upgrade request's headers, never the blank line that ends them. */
const halfHeaders = (port: number) => (raw: RawSocket) =>
  raw.socket.write(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nX-Half: `,
  );

const portOf = (url: string) => Number(new URL(url).port);

/** The connections the limit's log lines say it closed (to make room) or refused, summed over its lines. */
function logged(stderr: string, what: 'closed' | 'refused'): number {
  const pattern = new RegExp(`${what} (\\d+) (?:new )?connection\\(s\\)`, 'g');
  return [...stderr.matchAll(pattern)].reduce((sum, match) => sum + Number(match[1]), 0);
}

let processes = 0;
/** Runs `echo ok` through `client` and answers what it printed. */
async function echo(client: TestClient): Promise<string> {
  const id = `echo-${processes++}`;
  await client.call('process/start', bash(id, 'echo ok', dir));
  await client.waitForEvent('closed', id);
  return client.output(id);
}

/** The token holder: connects, initializes and runs a process; a server that shuts it out fails it within 20 s. */
async function tokenHolderRuns(url: string): Promise<TestClient> {
  return within(
    20_000,
    'the token holder',
    (async () => {
      const client = await TestClient.open(url, BEARER);
      await client.initialize();
      expect(await echo(client)).toBe('ok\n');
      return client;
    })(),
  );
}

describe('exec-server: slow senders', () => {
  it('closes a connection that sent half its headers after the default 5 s; a WebSocket with the token stays', async () => {
    const server = await startWsServer();
    const client = await tokenHolderRuns(server.url);
    const slow = await rawSocket(portOf(server.url), halfHeaders(portOf(server.url)));
    try {
      await vi.waitFor(() => expect(slow.closedAt).toBeDefined(), { timeout: 10_000, interval: 50 });
      // After the 5 s headers timeout (checked every second), not at once and not after Node's default 60 s.
      expect(slow.closedAt! - slow.connectedAt).toBeGreaterThan(4_500);
      expect(slow.closedAt! - slow.connectedAt).toBeLessThan(7_500);
      expect(slow.received).toBe('');
      // The WebSocket is older than the connection the timeout closed, yet the upgrade put it out of the timeout's reach.
      expect(await echo(client)).toBe('ok\n');
    } finally {
      slow.socket.destroy();
      await client.close();
    }
  }, 30_000);
});

describe('exec-server: connections without the token', () => {
  it.each([
    ['connect and send nothing', 'silent'],
    ['send half of an upgrade request’s headers', 'half-headers'],
  ] as const satisfies ReadonlyArray<readonly [string, FloodMode]>)(
    'lets the token holder run a process while another user holds --max-connections connections that %s',
    async (_, mode) => {
      const server = await startWsServer(['--max-connections', '16']);
      const client = await whileFlooded(portOf(server.url), 16, mode, () => tokenHolderRuns(server.url));
      await client.close();
    },
    60_000,
  );

  it('answers a request without the token once, then closes, even when the client never closes its side', async () => {
    const server = await startWsServer();
    const pid = server.child.pid!;
    const port = portOf(server.url);
    const baseline = openFdCount(pid);
    const refused: Socket[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
        refused.push(socket);
        socket.on('error', () => undefined);
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
        socket.write(upgradeWithoutToken(port));
        await once(socket, 'end');
        expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n[^]*\r\n\r\nmissing websocket bearer token$/);
      }
      // A request that is no upgrade cannot carry the token either: no keep-alive for it.
      const plain = await rawSocket(port, ({ socket }) =>
        socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`),
      );
      await vi.waitFor(() => expect(plain.closedAt).toBeDefined(), { timeout: 5_000, interval: 20 });
      expect(plain.received).toMatch(/^HTTP\/1\.1 400 [^]*\r\nconnection: close\r\n/i);
      // Each got its answer and the server's end of the connection; the server keeps none of them open.
      await vi.waitFor(() => expect(openFdCount(pid)).toBeLessThanOrEqual(baseline), { timeout: 5_000, interval: 50 });
    } finally {
      for (const socket of refused) socket.destroy();
    }
  });

  it('never closes a WebSocket that carried the token; with every place taken by one, a newcomer is closed', async () => {
    const server = await startWsServer(['--max-connections', '4']);
    const port = portOf(server.url);
    const clients: TestClient[] = [];
    const raws: RawSocket[] = [];
    try {
      for (let i = 0; i < 3; i++) clients.push(await tokenHolderRuns(server.url));
      // Twenty connections without the token, one after another, for the one place left.
      for (let i = 0; i < 20; i++) raws.push(await rawSocket(port, i % 2 === 0 ? () => undefined : halfHeaders(port)));
      await vi.waitFor(() => expect(raws.filter((raw) => raw.closedAt === undefined).length).toBeLessThanOrEqual(1));
      clients.push(await tokenHolderRuns(server.url));
      // Four WebSockets with the token hold every place: the next connection is closed unanswered, at once.
      const newcomer = await rawSocket(port, halfHeaders(port));
      raws.push(newcomer);
      await vi.waitFor(() => expect(newcomer.closedAt).toBeDefined(), { timeout: 3_000, interval: 10 });
      expect(newcomer.received).toBe('');
      expect(newcomer.closedAt! - newcomer.connectedAt).toBeLessThan(1_000);
      for (const client of clients) expect(await echo(client)).toBe('ok\n');
      // The log counts both, every 5 s: the twenty without the token made room for each other and for the fourth
      // WebSocket (the last one, unless the headers timeout closed it first); the newcomer was refused.
      await vi.waitFor(() => expect(logged(server.stderr(), 'refused')).toBe(1), { timeout: 10_000, interval: 100 });
      expect(logged(server.stderr(), 'closed')).toBeGreaterThanOrEqual(19);
      expect(logged(server.stderr(), 'closed')).toBeLessThanOrEqual(20);
    } finally {
      for (const raw of raws) raw.socket.destroy();
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 60_000);
});
