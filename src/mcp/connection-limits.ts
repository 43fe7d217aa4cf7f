import type { Server, ServerOptions } from 'node:http';
import { CONNECTIONS_CHECK_INTERVAL_MS, REQUEST_TIMEOUT_MS } from './defaults.js';

/** Node's timeouts for slow senders (slowloris): headers within `headersTimeoutMs`, a whole request within 60 s. */
export function connectionTimeouts(headersTimeoutMs: number): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    // Counts only until the request is in: a long poll's answer may take its 300 s.
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs),
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_INTERVAL_MS, headersTimeoutMs),
  };
}

/**
 * At most `max` open connections: Node closes the ones over it as soon as they are accepted ('drop'), so a flood
 * cannot use up the process's file descriptors; under one, a log line every 5 s says how many were refused.
 */
export function limitConnections(server: Server, max: number, log: (line: string) => void): void {
  server.maxConnections = max;
  let dropped = 0;
  server.on('drop', () => {
    if (dropped++ > 0) return;
    setTimeout(() => {
      log(`refused ${dropped} connection(s) in 5 s: ${max} open at most (--max-connections)`);
      dropped = 0;
    }, 5_000).unref();
  });
}
