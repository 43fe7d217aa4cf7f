/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) as the IPv4 one, so both kinds compare alike. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped === null ? address.toLowerCase() : mapped[1]!;
}
