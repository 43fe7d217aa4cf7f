import { describe, expect, it } from 'vitest';
import { isLocalAddress, parseFibTrieLocal, parseIfInet6, tableForm } from '../../src/linux/local-addresses.js';

const FIB_TRIE = `Main:
  +-- 0.0.0.0/0 3 0 5
        +-- 10.88.0.0/16 2 0 2
           +-- 10.88.0.0/31 1 0 0
              |-- 10.88.0.0
                 /16 link UNICAST
              |-- 10.88.0.1
                 /32 host LOCAL
           |-- 10.88.255.255
              /32 link BROADCAST
     +-- 192.0.2.0/24 2 0 2
           |-- 192.0.2.2
              /32 host LOCAL
`;
const IF_INET6 = `00000000000000000000000000000001 01 80 10 80       lo
fe80000000000000e47ccdfffecbd79d 09 40 20 80 cni-podman0
`;

describe("this machine's addresses from the kernel's tables", () => {
  it('reads the IPv4 addresses the local table answers for, whatever their interface', () => {
    expect(parseFibTrieLocal(FIB_TRIE)).toEqual(['10.88.0.1', '192.0.2.2']);
  });

  it('reads every IPv6 address of every interface', () => {
    expect(parseIfInet6(IF_INET6)).toEqual(['00000000000000000000000000000001', 'fe80000000000000e47ccdfffecbd79d']);
  });

  it('puts an address in the tables’ form: mapped IPv4 as IPv4, IPv6 in 32 hex digits, a zone dropped', () => {
    expect(tableForm('::ffff:10.88.0.1')).toBe('10.88.0.1');
    expect(tableForm('fe80::e47c:cdff:fecb:d79d%cni-podman0')).toBe('fe80000000000000e47ccdfffecbd79d');
    expect(tableForm('::1')).toBe('00000000000000000000000000000001');
    expect(tableForm('not-an-address')).toBeUndefined();
    expect(tableForm('1:2:3')).toBeUndefined();
  });

  it("knows this machine's loopback addresses, and not a documentation address, from the live tables", () => {
    expect(isLocalAddress('127.0.0.1')).toBe(true);
    expect(isLocalAddress('::1')).toBe(true);
    expect(isLocalAddress('198.51.100.77')).toBe(false);
  });
});
