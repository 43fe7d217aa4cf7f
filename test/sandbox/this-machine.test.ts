import { describe, expect, it } from 'vitest';
import { judgeUpstream } from '../../src/sandbox/this-machine.js';

const OWN = ['127.0.0.1', '::1', '192.168.1.20', 'fe80::a00:27ff:fe4e:66a1%eth0', '2001:db8::20'];

describe('judgeUpstream', () => {
  it('dials the first address when none is this machine’s', () => {
    expect(judgeUpstream(['93.184.215.14', '2606:2800:21f:cb07::1'], OWN)).toEqual({
      kind: 'dial',
      address: '93.184.215.14',
    });
  });

  it.each([
    ['127.0.0.1'],
    ['127.45.6.7'],
    ['::1'],
    ['0.0.0.0'],
    ['::'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:0.0.0.0'],
  ])('refuses %s, loopback or unspecified, with no interface listed', (address) => {
    expect(judgeUpstream([address], [])).toEqual({ kind: 'this-machine', address });
  });

  it.each([
    ['192.168.1.20'],
    ['::ffff:192.168.1.20'],
    ['2001:db8::20'],
    ['2001:DB8:0:0::20'],
    ['fe80::a00:27ff:fe4e:66a1'],
    ['fe80::a00:27ff:fe4e:66a1%eth0'],
    ['fe80::a00:27ff:fe4e:66a1%2'],
  ])('refuses %s, an address of one of this machine’s interfaces', (address) => {
    expect(judgeUpstream([address], OWN)).toEqual({ kind: 'this-machine', address });
  });

  it('refuses when any one of the addresses is this machine’s, even after harmless ones', () => {
    expect(judgeUpstream(['93.184.215.14', '192.168.1.20'], OWN)).toEqual({
      kind: 'this-machine',
      address: '192.168.1.20',
    });
  });

  it('lets a neighbour on the same network through: only this machine’s own addresses are refused', () => {
    expect(judgeUpstream(['192.168.1.21', 'fe80::1%eth0'], OWN)).toEqual({ kind: 'dial', address: '192.168.1.21' });
  });

  it('refuses what is not an address, and says when there is none', () => {
    expect(judgeUpstream(['localhost'], OWN)).toEqual({ kind: 'this-machine', address: 'localhost' });
    expect(judgeUpstream([], OWN)).toEqual({ kind: 'no-address' });
  });
});
