// Whose process is at the other end of an accepted connection, asked of the kernel through our addon and of /proc:
// a real listener, a connection of this process's and one of another local user's process, on every address form;
// and the verdict on plain data.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionPeer, peerOf } from '../../src/linux/connection-peer.js';
import type { SocketOwner } from '../../src/net/socket-owner.js';
import { ROOT } from '../mcp/cli-process.js';
import { missingTools } from '../helpers/needs.js';
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
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['::', '127.0.0.1'],
    ['::', '::1'],
    // An IPv6 client socket to a v4-mapped address: the kernel keeps it among the IPv4 connections.
    ['::', '::ffff:127.0.0.1'],
  ])('tells a connection of this process’s user on %s from %s', async (host, from) => {
    const { port, accepted } = await listen(host);
    const client = connect({ host: from, port });
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

  it('counts a peer whose zone names no interface here as another’s: the lookup failed', () => {
    const zoned = (zone: string) =>
      ({
        localAddress: `fe80::1%${zone}`,
        localPort: 8080,
        remoteAddress: `fe80::2%${zone}`,
        remotePort: 41159,
      }) as Socket;
    expect(connectionPeer(zoned('no-such-interface'))).toBe('other');
    // An index no interface has: the kernel finds no socket there.
    expect(connectionPeer(zoned('999999'))).toBe('other');
  });

  // Node prints a link-local peer with its zone (`fe80::1%v0`), and the kernel finds its socket only with the
  // interface's index. In a network namespace of the test's own: a veth pair whose end v0 carries a link-local, a
  // global IPv6 and an IPv4 address; a listener on `::` reached at each, and at the IPv4 one v4-mapped.
  const NO_NETNS =
    CANNOT_SWITCH_USER ?? missingTools('ip', 'unshare') ?? (process.getuid?.() === 0 ? undefined : 'not root');
  it.skipIf(NO_NETNS !== undefined && !process.env.CI)(
    'tells whose a connection is on every address form of an interface: link-local with its zone, IPv6, IPv4, v4-mapped',
    () => {
      const setup = [
        'ip link set lo up',
        'ip link add v0 type veth peer name v1',
        'ip link set v0 up',
        'ip link set v1 up',
        'ip -6 addr add fe80::1/64 dev v0 nodad',
        'ip -6 addr add 2001:db8::1/64 dev v0 nodad',
        'ip addr add 10.9.0.1/24 dev v0',
        'exec "$@"',
      ].join(' && ');
      const hosts = ['fe80::1%v0', '2001:db8::1', '10.9.0.1', '::ffff:10.9.0.1'];
      const probe = [
        join(ROOT, 'test/fixtures/connection-peer-probe.mjs'),
        join(ROOT, 'dist/linux/connection-peer.js'),
        JSON.stringify(NOBODY_IDS),
        ...hosts,
      ];
      const run = spawnSync('unshare', ['-n', 'sh', '-c', setup, 'netns', process.execPath, ...probe], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual([
        ['fe80::1%v0', 'fe80::1%v0', 'ours'],
        ['fe80::1%v0', 'fe80::1%v0', 'other'],
        ['2001:db8::1', '2001:db8::1', 'ours'],
        ['2001:db8::1', '2001:db8::1', 'other'],
        ['10.9.0.1', '::ffff:10.9.0.1', 'ours'],
        ['10.9.0.1', '::ffff:10.9.0.1', 'other'],
        ['::ffff:10.9.0.1', '::ffff:10.9.0.1', 'ours'],
        ['::ffff:10.9.0.1', '::ffff:10.9.0.1', 'other'],
      ]);
    },
    40_000,
  );
});

describe('peerOf', () => {
  const OWN = 1000;
  const socket = (uid: number, inode = 42): SocketOwner => ({ found: 'socket', uid, inode });
  const sandboxed = (answer: 'yes' | 'no' | 'unknown') => (inode: number) => {
    expect(inode).toBe(42);
    return answer;
  };
  const never = () => expect.fail('asked whether a sandbox holds it');

  it('counts an unsandboxed process of the server’s user as ours', () => {
    expect(peerOf(socket(OWN), OWN, sandboxed('no'))).toBe('ours');
  });

  it('counts a sandboxed process of the server’s user as another’s', () => {
    expect(peerOf(socket(OWN), OWN, sandboxed('yes'))).toBe('other');
  });

  it('counts another user’s socket, no socket here, a socket no process holds and a failed lookup as another’s', () => {
    expect(peerOf(socket(65534), OWN, never)).toBe('other');
    expect(peerOf({ found: 'none' }, OWN, never)).toBe('other');
    expect(peerOf(socket(OWN, 0), OWN, never)).toBe('other');
    expect(peerOf({ found: 'failed', why: 'sock_diag: Invalid argument' }, OWN, never)).toBe('other');
  });

  it('cannot tell where nothing could be asked, or this process’s own confinement is unknown', () => {
    expect(peerOf({ found: 'unasked' }, OWN, never)).toBe('unknown');
    expect(peerOf(socket(OWN), OWN, sandboxed('unknown'))).toBe('unknown');
  });
});
