import { describe, expect, it } from 'vitest';
import { addressZone, fromThisMachine, plainAddress, zoneIndex } from '../../src/net/address.js';

describe('plainAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::1', '::1'],
    ['FE80::1', 'fe80::1'],
    ['fe80::a00:27ff:fe4e:66a1%eth0', 'fe80::a00:27ff:fe4e:66a1'],
    ['fe80::1%3', 'fe80::1'],
    ['2001:db8::1', '2001:db8::1'],
  ])('takes %s as %s', (address, plain) => expect(plainAddress(address)).toBe(plain));
});

describe('addressZone', () => {
  it('gives the zone of a scoped address and none of any other', () => {
    expect(addressZone('fe80::1%eth0')).toBe('eth0');
    expect(addressZone('fe80::1%3')).toBe('3');
    expect(addressZone('::1')).toBeUndefined();
    expect(addressZone('::ffff:127.0.0.1')).toBeUndefined();
    expect(addressZone('10.0.0.1')).toBeUndefined();
  });
});

describe('zoneIndex', () => {
  const entry = (family: string, scopeid?: number) => ({ family, ...(scopeid === undefined ? {} : { scopeid }) });
  const interfaces = {
    lo: [entry('IPv4'), entry('IPv6', 0)],
    // 10.0.0.2, 2001:db8::2, fe80::2
    eth0: [entry('IPv4'), entry('IPv6', 0), entry('IPv6', 7)],
  };

  it('takes an interface name to the index its link-local address carries', () => {
    expect(zoneIndex('eth0', interfaces)).toBe(7);
  });

  it('takes a number as the index itself', () => expect(zoneIndex('12', interfaces)).toBe(12));

  it('knows no index for an interface that is not there, or has no scoped address', () => {
    expect(zoneIndex('eth1', interfaces)).toBeUndefined();
    expect(zoneIndex('lo', interfaces)).toBeUndefined();
  });
});

describe('fromThisMachine', () => {
  it('takes a loopback peer, or one at the address it reached, for this machine', () => {
    expect(fromThisMachine('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(fromThisMachine('127.0.0.2', '127.0.0.1')).toBe(true);
    expect(fromThisMachine('::ffff:127.0.0.1', '::ffff:127.0.0.1')).toBe(true);
    expect(fromThisMachine('::1', '::1')).toBe(true);
    expect(fromThisMachine('192.0.2.2', '192.0.2.2')).toBe(true);
    expect(fromThisMachine('fe80::1%v0', 'fe80::1%v0')).toBe(true);
  });

  it('takes a peer that reached a loopback address for this machine, from whatever address it left', () => {
    expect(fromThisMachine('192.0.2.2', '127.0.0.1')).toBe(true);
    expect(fromThisMachine('fd00::2', '::1')).toBe(true);
    expect(fromThisMachine('::ffff:10.88.0.1', '::ffff:127.0.0.1')).toBe(true);
  });

  it('takes any other peer for another machine', () => {
    expect(fromThisMachine('192.0.2.9', '192.0.2.2')).toBe(false);
    expect(fromThisMachine('fe80::2%v0', 'fe80::1%v0')).toBe(false);
    expect(fromThisMachine('::ffff:10.0.0.5', '::ffff:10.0.0.1')).toBe(false);
  });
});
