/**
 * This machine's own addresses as the kernel holds them (this network namespace's): every IPv4 address its local
 * routing table answers for (/proc/net/fib_trie's `host LOCAL` entries) and every IPv6 address of every interface
 * (/proc/net/if_inet6), whatever the interface's state. Node's networkInterfaces() lists no interface that is up
 * without a carrier (an idle podman or docker bridge), whose addresses are this machine's all the same. Pure parsers,
 * and a reader at the end.
 */
import { readProcText } from './proc-read.js';

/** The IPv4 addresses /proc/net/fib_trie's text marks `/32 host LOCAL`. */
export function parseFibTrieLocal(text: string): string[] {
  const found = new Set<string>();
  let last: string | undefined;
  for (const line of text.split('\n')) {
    const leaf = /[|+]-- (\d+\.\d+\.\d+\.\d+)\s*$/.exec(line);
    if (leaf) last = leaf[1];
    else if (last !== undefined && /\/32 host LOCAL/.test(line)) found.add(last);
  }
  return [...found];
}

/** The IPv6 addresses of /proc/net/if_inet6's text, each as 32 lower-case hex digits. */
export function parseIfInet6(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter((hex) => /^[0-9a-f]{32}$/i.test(hex))
    .map((hex) => hex.toLowerCase());
}

/**
 * `address` (IPv4, or IPv6 without its zone) in the form the tables above use: IPv4 dotted, IPv6 as 32 hex digits;
 * undefined when it is neither.
 */
export function tableForm(address: string): string | undefined {
  const bare = address.replace(/%.*$/s, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1];
  if (/^\d+\.\d+\.\d+\.\d+$/.test(bare)) return bare;
  if (!bare.includes(':')) return undefined;
  const [head = '', tail = ''] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = bare.includes('::') ? groups(tail) : [];
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (!bare.includes('::') && missing !== 0)) return undefined;
  const all = [...left, ...Array<string>(missing).fill('0'), ...right];
  if (all.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return all.map((group) => group.padStart(4, '0')).join('');
}

/** Whether `address` is one of this machine's own, by the kernel's tables (false when they cannot be read). */
export function isLocalAddress(address: string): boolean {
  const form = tableForm(address);
  if (form === undefined) return false;
  const table = form.includes('.') ? parseFibTrieLocal(readProcText('/proc/net/fib_trie') ?? '') : undefined;
  return table !== undefined
    ? table.includes(form)
    : parseIfInet6(readProcText('/proc/net/if_inet6') ?? '').includes(form);
}
