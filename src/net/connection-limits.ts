import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { CONNECTIONS_CHECK_INTERVAL_MS, REQUEST_TIMEOUT_MS } from './defaults.js';
import { pickConnectionToClose, type ConnectionState } from './connection-eviction.js';

/** Node's timeouts for slow senders (slowloris): headers within `headersTimeoutMs`, a whole request within 60 s. */
export function connectionTimeouts(headersTimeoutMs: number): ServerOptions {
  return {
    headersTimeout: headersTimeoutMs,
    // Counts only until the request is in: a long poll's answer may take its 300 s.
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, headersTimeoutMs),
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECK_INTERVAL_MS, headersTimeoutMs),
  };
}

/** What the request handler tells the connection limit, and asks it. */
export interface ConnectionGate {
  /** A request on `socket` carried the token: its connection is never closed to make room, and may keep alive. */
  authenticate(socket: Socket): void;
  isAuthenticated(socket: Socket): boolean;
}

/** Whose process is at the other end of a connection (see ConnectionState.peer). */
export type Peer = ReturnType<ConnectionState<Socket>['peer']>;

/**
 * At most `max` open connections, so a flood cannot use up the process's file descriptors. At the cap a new
 * connection closes one that never carried the token (pickConnectionToClose), another user's first, so connections
 * without it cannot lock out the token holder; only when every other one carried it is the newcomer closed. A log line every 5 s says how
 * many were closed either way. `peerOf` tells whose a connection is (linux/connection-peer.ts): asked once per
 * connection, only of one that sent nothing, only at the cap.
 */
export function limitConnections(
  server: Server,
  max: number,
  log: (line: string) => void,
  peerOf: (socket: Socket) => Peer,
): ConnectionGate {
  // Insertion order is acceptance order: oldest first.
  const open = new Map<Socket, Omit<ConnectionState<Socket>, 'sent' | 'peer'> & { peer?: Peer }>();
  function* states(): Generator<ConnectionState<Socket>> {
    for (const state of open.values())
      yield { ...state, sent: state.key.bytesRead > 0, peer: () => (state.peer ??= peerOf(state.key)) };
  }
  // Event-loop turns that accepted connections, counted in the check phase after them; one more turn is counted
  // after the last accept, then the counter rests (no timer runs while nothing arrives).
  let turn = 0;
  let lastAcceptTurn = -1;
  let ticking = false;
  const tick = () => {
    turn++;
    ticking = lastAcceptTurn >= turn - 1;
    if (ticking) setImmediate(tick);
  };
  let refused = 0;
  let evicted = 0;
  const report = () => {
    if (refused + evicted > 1) return;
    setTimeout(() => {
      const parts = [
        ...(evicted > 0 ? [`closed ${evicted} connection(s) without the token to make room`] : []),
        ...(refused > 0 ? [`refused ${refused} new connection(s)`] : []),
      ];
      log(`${parts.join('; ')} in 5 s: ${max} open at most (--max-connections)`);
      refused = evicted = 0;
    }, 5_000).unref();
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const victim = pickConnectionToClose(states(), turn);
      if (victim === undefined) {
        refused++;
        report();
        socket.destroy();
        return;
      }
      evicted++;
      report();
      open.delete(victim);
      victim.destroy();
    }
    open.set(socket, { key: socket, authenticated: false, busy: false, acceptedTurn: turn });
    socket.once('close', () => open.delete(socket));
    lastAcceptTurn = turn;
    if (!ticking) {
      ticking = true;
      setImmediate(tick);
    }
  });
  server.on('request', (req, res) => {
    const state = open.get(req.socket);
    if (state === undefined) return;
    state.busy = true;
    res.once('close', () => (state.busy = false));
  });

  return {
    authenticate(socket) {
      const state = open.get(socket);
      if (state) state.authenticated = true;
    },
    isAuthenticated: (socket) => open.get(socket)?.authenticated ?? false,
  };
}
