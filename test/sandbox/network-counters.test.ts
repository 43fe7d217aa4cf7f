import { describe, expect, it } from 'vitest';
import { noRouteCount } from '../../src/sandbox/network-counters.js';

const snmp = (outNoRoutes: number) =>
  [
    'Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout',
    `Ip: 1 64 8 0 0 0 0 0 8 8 0 ${outNoRoutes} 0`,
    'Icmp: InMsgs InErrors',
    'Icmp: 7 0',
    'Udp: InDatagrams NoPorts',
    'Udp: 1 5',
    '',
  ].join('\n');
const snmp6 = (outNoRoutes: number) =>
  `Ip6InReceives                   \t3\nIp6OutNoRoutes                  \t${outNoRoutes}\nIp6OutRequests 4\n`;

describe('noRouteCount', () => {
  it('adds the packets IPv4 and IPv6 found no route for', () => {
    expect(noRouteCount(snmp(0), snmp6(0))).toBe(0);
    expect(noRouteCount(snmp(4), snmp6(0))).toBe(4);
    expect(noRouteCount(snmp(1), snmp6(2))).toBe(3);
  });

  it('counts nothing else: loopback traffic, ICMP, ports nobody listens on', () => {
    expect(noRouteCount(snmp(0).replace('Udp: 1 5', 'Udp: 9 9'), snmp6(0))).toBe(0);
  });

  it('takes a missing snmp6 (IPv6 disabled) or an unknown layout as none', () => {
    expect(noRouteCount(snmp(2), '')).toBe(2);
    expect(noRouteCount('', '')).toBe(0);
    expect(noRouteCount('Ip: Forwarding\nIp: 1\n', 'Ip6OutNoRoutes x\n')).toBe(0);
  });
});
