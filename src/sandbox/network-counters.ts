/**
 * The bubblewrap backend's sign that a command was refused the network: with the network off, its sandbox has a
 * network namespace of its own holding only `lo`, whose counters start at zero. A packet for any address but the
 * loopback finds no route there and counts in `Ip: OutNoRoutes` (`Ip6OutNoRoutes` for IPv6): a connection, a name
 * lookup through a resolver not on the loopback. Nothing on the loopback counts there: an idle shell, a server the
 * command runs and talks to itself.
 */

/** How many packets found no route, from the text of a namespace's `net/snmp` and `net/snmp6`. Pure. */
export function noRouteCount(snmp: string, snmp6: string): number {
  // A line of names, then one of values, each starting with `Ip:`.
  const [names, values] = snmp
    .split('\n')
    .filter((line) => line.startsWith('Ip:'))
    .map((line) => line.trim().split(/\s+/));
  const column = names?.indexOf('OutNoRoutes') ?? -1;
  const ip = column > 0 ? Number(values?.[column]) : NaN;
  const ip6 = Number(/^Ip6OutNoRoutes\s+(\d+)\s*$/m.exec(snmp6)?.[1]);
  return (Number.isInteger(ip) ? ip : 0) + (Number.isInteger(ip6) ? ip6 : 0);
}
