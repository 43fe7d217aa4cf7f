// Whose process is at the other end of an accepted connection, asked of the kernel through our addon: a real
// listener, a connection of this process's and one of another local user's process.
import { spawn } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionPeer } from '../../src/net/connection-limits.js';
import { CANNOT_SWITCH_USER, NOBODY_IDS } from '../helpers/nobody.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** A listener on `host`, and the server side of the next connection it accepts. */
async function listen(host: string): Promise<{ port: number; accepted: Promise<Socket> }> {
  let accept!: (socket: Socket) => void;
  const accepted = new Promise<Socket>((resolve) => (accept = resolve));
  server = createServer((socket) => accept(socket));
  await new Promise<void>((resolve) => server!.listen(0, host, resolve));
  return { port: (server.address() as { port: number }).port, accepted };
}

describe('connectionPeer', () => {
  it.each(['127.0.0.1', '::1', '::'])('tells a connection of this process’s user on %s', async (host) => {
    const { port, accepted } = await listen(host);
    const client = connect({ host: host === '::' ? '127.0.0.1' : host, port });
    try {
      const socket = await accepted;
      expect(connectionPeer(socket)).toBe('ours');
      socket.destroy();
    } finally {
      client.destroy();
    }
  });

  it.skipIf(CANNOT_SWITCH_USER !== undefined)('tells a connection of another local user’s process', async () => {
    const { port, accepted } = await listen('::');
    const script = `require('net').connect(${port}, '127.0.0.1').on('error', () => {}); setTimeout(() => {}, 30000)`;
    const child = spawn('setpriv', [...NOBODY_IDS, process.execPath, '-e', script], { stdio: 'ignore' });
    try {
      const socket = await accepted;
      expect(connectionPeer(socket)).toBe('other');
      socket.destroy();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('cannot tell once the connection is closed (it has no addresses left)', async () => {
    const { port, accepted } = await listen('127.0.0.1');
    const client = connect({ host: '127.0.0.1', port });
    const socket = await accepted;
    client.destroy();
    await new Promise((resolve) => socket.once('close', resolve).resume());
    expect(connectionPeer(socket)).toBe('unknown');
  });
});
