/** What deciding whether a client has ended needs to know of it. */
export interface ClientPresence {
  /** Milliseconds since the epoch of its latest request, latest answer, or its event stream's closing. */
  lastSeen: number;
  /** Calls of it still waiting for their answer. */
  openCalls: number;
  /** Its event streams (GET) open now. */
  openStreams: number;
  /** It has held an event stream open before. */
  hadStream: boolean;
}

export interface ExpiryLimits {
  /** No call in flight and no request for this long: the client is ended. */
  idleTimeoutMs: number;
  /** A client that held an event stream and has no connection left is ended after this long without a request. */
  disconnectGraceMs: number;
}

/**
 * Why a client should end now, or undefined while it may still be there:
 * - 'gone': it held an event stream open, as a live SDK client does all along, and now has no stream and no call
 *   open, and sent nothing for the grace. Its process has most likely exited without a DELETE; one that only lost
 *   its connection opens its stream again within a second or two.
 * - 'idle': no call and no request for the idle timeout. A client that never opened a stream cannot be told apart
 *   from one thinking between two turns, so only this applies to it.
 * A call in flight keeps any client, however long it takes.
 */
export function expiryOf(client: ClientPresence, now: number, limits: ExpiryLimits): 'gone' | 'idle' | undefined {
  if (client.openCalls > 0) return undefined;
  const quietMs = now - client.lastSeen;
  if (client.hadStream && client.openStreams === 0 && quietMs > limits.disconnectGraceMs) return 'gone';
  if (quietMs > limits.idleTimeoutMs) return 'idle';
  return undefined;
}
