/**
 * Open TCP connections a listener (serve, exec-server) holds, so a flood cannot use up the server's descriptors; at
 * the cap connections that never sent the token make room for new ones.
 */
export const DEFAULT_MAX_CONNECTIONS = 256;
/** A connection must send a request's headers within this; slow senders (slowloris) are cut off. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 5_000;
/**
 * For receiving a whole request, body included (serve's 4 MiB in 60 s is 70 KB/s; a WebSocket upgrade has no body,
 * so its headers' timeout bounds it). Node stops counting once the request is in, so a long poll, however long its
 * answer takes, is never cut by it.
 */
export const REQUEST_TIMEOUT_MS = 60_000;
/** How often Node looks for connections over those timeouts (its default, 30 s, would stretch 5 s to 35). */
export const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
