/** What the eviction choice needs to know of a client. */
export interface ClientActivity<K> {
  key: K;
  /** Milliseconds since the epoch of its latest request (or of its latest answer). */
  lastSeen: number;
  /** Calls of it still waiting for their answer. */
  openCalls: number;
  /** Live exec sessions its manager holds. */
  liveSessions: number;
}

/**
 * The client to end so a new one fits under the cap: never one with a call in flight; among the idle ones, a client
 * holding no exec session (e.g. one that only initialized) before one that does, then the least recently active.
 * Undefined when every client is busy.
 */
export function pickClientToEvict<K>(clients: Iterable<ClientActivity<K>>): K | undefined {
  let best: ClientActivity<K> | undefined;
  for (const client of clients) {
    if (client.openCalls > 0) continue;
    if (!best || rank(client) < rank(best) || (rank(client) === rank(best) && client.lastSeen < best.lastSeen))
      best = client;
  }
  return best?.key;
}

const rank = (client: ClientActivity<unknown>) => (client.liveSessions > 0 ? 1 : 0);
