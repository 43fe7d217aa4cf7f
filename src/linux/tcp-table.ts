/**
 * /proc/net/tcp and tcp6 read as data, and a process's confinement read from /proc/<pid>/status: what a listening
 * server needs to tell which local process is at the other end of a connection. Pure but for the readers at the end.
 */
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { readProcText } from './proc-read.js';
import { plainAddress } from '../net/address.js';

/** One socket of the table: its own and its peer's address as `address:port`, its owner's uid and its inode. */
export interface TcpSocket {
  local: string;
  remote: string;
  uid: number;
  /** 0 once no process holds the socket any more (closed, its connection winding down). */
  inode: number;
}

export { plainAddress };

/** The kernel prints each 32-bit word of an address in the host's byte order. */
function wordBytes(hex: string, littleEndian: boolean): number[] {
  const bytes = [0, 2, 4, 6].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return littleEndian ? bytes.reverse() : bytes;
}

/** `0100007F:1F90` as `127.0.0.1:8080`; an IPv6 one (32 hex digits) in the compressed form Node prints. */
export function tableAddress(field: string, littleEndian = endianness() === 'LE'): string {
  const [hex = '', portHex = ''] = field.split(':');
  const port = parseInt(portHex, 16);
  if (hex.length === 8) return `${wordBytes(hex, littleEndian).join('.')}:${port}`;
  const bytes = [0, 8, 16, 24].flatMap((i) => wordBytes(hex.slice(i, i + 8), littleEndian));
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `${bytes.slice(12).join('.')}:${port}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${compressIpv6(groups)}:${port}`;
}

/** The longest run of two or more zero groups as `::` (RFC 5952), as Node's remoteAddress has it. */
function compressIpv6(groups: string[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < groups.length;) {
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

/** The sockets of one table's text (its header line skipped). */
export function parseTcpTable(text: string, littleEndian = endianness() === 'LE'): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    sockets.push({
      local: tableAddress(fields[1]!, littleEndian),
      remote: tableAddress(fields[2]!, littleEndian),
      uid: Number(fields[7]),
      inode: Number(fields[9]),
    });
  }
  return sockets;
}

/**
 * The socket at the other end of an accepted connection: the one whose own address is the connection's remote one
 * and whose peer is the connection's local one. Undefined when no process of this network namespace made it (the
 * peer is another machine, or a container with a network of its own).
 */
export function peerSocket(
  sockets: readonly TcpSocket[],
  connection: { localAddress: string; localPort: number; remoteAddress: string; remotePort: number },
): TcpSocket | undefined {
  const local = `${plainAddress(connection.remoteAddress)}:${connection.remotePort}`;
  const remote = `${plainAddress(connection.localAddress)}:${connection.localPort}`;
  return sockets.find((socket) => socket.local === local && socket.remote === remote);
}

/**
 * What confines a process, from its status file: `no_new_privs`, and how many seccomp filters it runs under; and
 * what decides whose files it may list in /proc: its user, and whether it may look into any process of its user
 * namespace and the namespaces below (CAP_SYS_PTRACE in effect).
 */
export interface Confinement {
  noNewPrivs: boolean;
  /** Seccomp_filters (kernel 5.9+); without that line, 1 for filter mode and 0 otherwise. */
  seccompFilters: number;
  /** The real user id, as the reader's user namespace sees it (the overflow id, 65534, where it maps to none). */
  uid: number;
  mayTrace: boolean;
}

type Confined = Pick<Confinement, 'noNewPrivs' | 'seccompFilters'>;

const CAP_SYS_PTRACE = 19n;

export function parseConfinement(status: string): Confinement {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\w+)`, 'm').exec(status)?.[1];
  const filters = field('Seccomp_filters');
  const uid = field('Uid');
  const capabilities = field('CapEff');
  return {
    noNewPrivs: field('NoNewPrivs') === '1',
    seccompFilters: filters !== undefined ? Number(filters) : field('Seccomp') === '2' ? 1 : 0,
    uid: Number(uid ?? -1),
    mayTrace: capabilities !== undefined && ((BigInt(`0x${capabilities}`) >> CAP_SYS_PTRACE) & 1n) === 1n,
  };
}

/**
 * Is a process with `other` confined beyond one with `own`? Every sandboxed command runs with no_new_privs and at
 * least one seccomp filter more than the server that started it, on both backends, and neither can be shed: not by
 * exec, setsid, a double fork or a cleared environment.
 */
export function confinedBeyond(other: Confined, own: Confined): boolean {
  return other.noNewPrivs && other.seccompFilters > own.seccompFilters;
}

/**
 * The socket at the other end of an accepted connection (see peerSocket), looked up in this network namespace's
 * tables: IPv4 first, IPv6 only if not found there (each read walks the kernel's whole table: 1-3 ms).
 */
export function findPeerSocket(connection: Parameters<typeof peerSocket>[1]): TcpSocket | undefined {
  for (const path of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(path, 'latin1'); // whole: a table of many connections takes more than one read
    } catch {
      continue; // no IPv6 in this kernel
    }
    const found = peerSocket(parseTcpTable(text), connection);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A process's confinement, or undefined when it is gone. */
export function readConfinement(pid: number | 'self'): Confinement | undefined {
  const status = readProcText(`/proc/${pid}/status`);
  return status === undefined ? undefined : parseConfinement(status);
}
