/**
 * The `ws` package, loaded when the first WebSocket is made or served, not when the library is imported: with the
 * Node modules it brings (http's client, TLS, zlib) it is about 3.5 MiB of RSS that a process which never uses an
 * exec-server does not pay.
 */
let loading: Promise<typeof import('ws')> | undefined;

export function loadWs(): Promise<typeof import('ws')> {
  return (loading ??= import('ws'));
}
