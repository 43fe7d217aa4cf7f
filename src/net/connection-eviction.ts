/** What the choice needs to know of an open connection. */
export interface ConnectionState<K> {
  key: K;
  /** A request on it carried the token (passed every check of a path that needs it). */
  authenticated: boolean;
  /** The server has read bytes from it. */
  sent: boolean;
  /** A request on it is being answered. */
  busy: boolean;
  /** The event-loop turn that accepted it (a counter the caller advances once per turn). */
  acceptedTurn: number;
  /**
   * Whose process is at the other end: `ours` (the server's user's, unsandboxed: it can read the token anyway),
   * `other` (another local user's, a sandboxed process's, none of this machine's, or one the lookup failed for: none
   * of these is let be the token holder, or a flood of them could pass for it), `unknown` (it could not be asked:
   * then only its age counts). Asked only of a connection that sent nothing yet, and only when one must be closed.
   */
  peer(): 'ours' | 'other' | 'unknown';
}

/**
 * The connection to close so a newcomer fits under the cap, never an authenticated one; oldest first within the
 * first of these groups that has one:
 * 1. it sent bytes, idle: half-sent headers without the token;
 * 2. it sent bytes, being answered: a request without the token (a public file, a 401), which ends with its answer;
 * 3. it sent nothing yet, from another user's process: whatever its age, it is not a token holder of the server's
 *    user, who would otherwise lose the race against a flood that reopens every connection closed;
 * 4. it sent nothing yet, accepted before the previous turn of the event loop;
 * 5. it sent nothing yet, accepted in this turn or the previous one: a token holder's first bytes, sent at once, may
 *    not have been read yet, so these go last.
 * A connection whose bytes were read without the token is known not to be the token holder's; one that sent nothing
 * may be. `connections` come oldest first. Undefined when every one is authenticated: then the newcomer is refused.
 */
export function pickConnectionToClose<K>(connections: Iterable<ConnectionState<K>>, turn: number): K | undefined {
  const firstOf: Array<K | undefined> = [];
  for (const connection of connections) {
    if (connection.authenticated) continue;
    const group = groupOf(connection, turn);
    if (group === 0) return connection.key;
    firstOf[group] ??= connection.key;
  }
  return firstOf.find((key) => key !== undefined);
}

function groupOf(connection: ConnectionState<unknown>, turn: number): number {
  if (connection.sent) return connection.busy ? 1 : 0;
  if (connection.peer() === 'other') return 2;
  return connection.acceptedTurn < turn - 1 ? 3 : 4;
}
