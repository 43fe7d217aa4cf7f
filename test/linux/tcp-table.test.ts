import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  confinedBeyond,
  findPeerSocket,
  parseConfinement,
  parseTcpTable,
  peerSocket,
  plainAddress,
  tableAddress,
} from '../../src/linux/tcp-table.js';

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';

describe('the TCP tables', () => {
  it('reads IPv4 addresses as the kernel prints them on a little-endian machine', () => {
    expect(tableAddress('0100007F:1F90', true)).toBe('127.0.0.1:8080');
    expect(tableAddress('7F000001:1F90', false)).toBe('127.0.0.1:8080');
  });

  it('reads IPv6 addresses in the compressed form, and IPv4-mapped ones as IPv4', () => {
    expect(tableAddress('00000000000000000000000001000000:0050', true)).toBe('::1:80');
    expect(tableAddress('0000000000000000FFFF00000100007F:0050', true)).toBe('127.0.0.1:80');
    expect(tableAddress('000000FD000000000000000002000000:0050', true)).toBe('fd00::2:80');
  });

  it('takes uid and inode from each line, skipping the header', () => {
    const text = `${HEADER}   1: 0100007F:A0C7 0100007F:8538 01 00000000:00000000 00:00000000 00000000  65534        0 4242 1 0\n`;
    expect(parseTcpTable(text, true)).toEqual([
      { local: '127.0.0.1:41159', remote: '127.0.0.1:34104', uid: 65534, inode: 4242 },
    ]);
  });

  it('finds the socket at the other end of an accepted connection, the server on IPv6 or IPv4', () => {
    const sockets = [
      { local: '127.0.0.1:34104', remote: '0.0.0.0:0', uid: 0, inode: 1 },
      { local: '127.0.0.1:41159', remote: '127.0.0.1:34104', uid: 0, inode: 2 },
      { local: '127.0.0.1:34104', remote: '127.0.0.1:41159', uid: 0, inode: 3 },
    ];
    const accepted = { localAddress: '::ffff:127.0.0.1', localPort: 34104, remotePort: 41159 };
    expect(peerSocket(sockets, { ...accepted, remoteAddress: '::ffff:127.0.0.1' })?.inode).toBe(2);
    expect(peerSocket(sockets, { ...accepted, remoteAddress: '127.0.0.2' })).toBeUndefined();
    expect(plainAddress('::FFFF:10.0.0.1')).toBe('10.0.0.1');
  });

  it('finds the socket at the other end of a link-local connection, whose addresses Node prints with their zone', () => {
    // /proc/net/tcp6 has no zone: the interface is not among its fields.
    const sockets = [
      { local: 'fe80::1:8080', remote: 'fe80::2:41159', uid: 0, inode: 1 },
      { local: 'fe80::2:41159', remote: 'fe80::1:8080', uid: 65534, inode: 2 },
    ];
    const accepted = {
      localAddress: 'fe80::1%eth0',
      localPort: 8080,
      remoteAddress: 'fe80::2%eth0',
      remotePort: 41159,
    };
    expect(peerSocket(sockets, accepted)?.inode).toBe(2);
  });

  it('finds the real client socket of a real connection, with this process holding it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '::1');
    const socket = await accepted;
    const found = findPeerSocket({
      localAddress: socket.localAddress!,
      localPort: socket.localPort!,
      remoteAddress: socket.remoteAddress!,
      remotePort: socket.remotePort!,
    });
    expect(found).toMatchObject({ local: `::1:${client.localPort}`, uid: process.getuid?.() });
    expect(found?.inode).toBeGreaterThan(0);
    client.destroy();
    socket.destroy();
    server.close();
  });
});

describe('confinement', () => {
  const status = (nnp: number, mode: number, filters?: number) =>
    `Name:\tx\nUid:\t1000\t1000\t1000\t1000\nNoNewPrivs:\t${nnp}\nSeccomp:\t${mode}\n` +
    `${filters === undefined ? '' : `Seccomp_filters:\t${filters}\n`}CapEff:\t0000000000000000\n`;
  const unconfined = { uid: 1000, mayTrace: false };

  it('reads no_new_privs and the number of seccomp filters', () => {
    expect(parseConfinement(status(1, 2, 3))).toEqual({ noNewPrivs: true, seccompFilters: 3, ...unconfined });
    expect(parseConfinement(status(0, 0, 0))).toEqual({ noNewPrivs: false, seccompFilters: 0, ...unconfined });
    // Kernels before 5.9 print the mode only.
    expect(parseConfinement(status(1, 2))).toEqual({ noNewPrivs: true, seccompFilters: 1, ...unconfined });
  });

  it('reads the real user and whether CAP_SYS_PTRACE (bit 19) is in effect', () => {
    const root = 'Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n';
    expect(parseConfinement(root)).toMatchObject({ uid: 0, mayTrace: true });
    // Docker's default set: no CAP_SYS_PTRACE.
    expect(parseConfinement('Uid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n')).toMatchObject({ mayTrace: false });
    expect(parseConfinement('Uid:\t5\t0\t0\t0\nCapEff:\t0000000000080000\n')).toMatchObject({ uid: 5, mayTrace: true });
  });

  it('counts a process confined beyond the server only with no_new_privs and more filters than the server', () => {
    const server = { noNewPrivs: false, seccompFilters: 0 };
    expect(confinedBeyond({ noNewPrivs: true, seccompFilters: 1 }, server)).toBe(true);
    expect(confinedBeyond({ noNewPrivs: false, seccompFilters: 1 }, server)).toBe(false);
    expect(confinedBeyond({ noNewPrivs: true, seccompFilters: 0 }, server)).toBe(false);
    // A server in a container's filter: its clients there share it, its sandboxes add theirs.
    const contained = { noNewPrivs: true, seccompFilters: 1 };
    expect(confinedBeyond({ noNewPrivs: true, seccompFilters: 1 }, contained)).toBe(false);
    expect(confinedBeyond({ noNewPrivs: true, seccompFilters: 2 }, contained)).toBe(true);
  });
});
