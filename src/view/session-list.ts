import type { SessionInfo, SessionState } from '../manager/types.js';
import type { ClientListing } from '../mcp/client-registry.js';

/** One row of the page's list: an exec session and the MCP client it belongs to. */
export interface ViewSession {
  client_id: string;
  /** From the client's initialize request (e.g. "claude-code"); null when it gave none. */
  client_name: string | null;
  session_id: number;
  command: string;
  tty: boolean;
  /** The session leader's pid on this machine; null when it runs elsewhere. */
  pid: number | null;
  state: SessionState;
  /** ISO 8601. */
  started_at: string;
  /** Seconds since it started, by the server's clock (the page's clock may differ). */
  age_s: number;
  exit_code: number | null;
  /** Where it runs: `local`, `ws://10.0.0.2:8700`, `docker://web-1`. */
  location: string;
}

export interface SessionListing {
  /** Whether the page may type into sessions (serve --view-input). */
  input: boolean;
  /** Newest first. */
  sessions: ViewSession[];
}

/** One row, from what the manager says of the session and what its probe said it is doing. */
export function toViewSession(
  client: Pick<ClientListing, 'clientId' | 'clientName'>,
  info: SessionInfo,
  state: SessionState | undefined,
  nowMs: number,
): ViewSession {
  return {
    client_id: client.clientId,
    client_name: client.clientName ?? null,
    session_id: info.sessionId,
    command: info.command,
    tty: info.tty,
    pid: info.pid ?? null,
    // A session that started after the probe began has no state in it yet; running is what it is doing then.
    state: info.exited ? 'exited' : (state ?? 'running'),
    started_at: info.startedAt.toISOString(),
    age_s: Math.max(0, Math.floor((nowMs - info.startedAt.getTime()) / 1000)),
    exit_code: info.exitCode ?? null,
    location: info.location,
  };
}

/** Every exec session of every client, each with its state (a live tty session is probed for ~100 ms, all at once). */
export async function listSessions(clients: ClientListing[], input: boolean): Promise<SessionListing> {
  const perClient = await Promise.all(
    clients.map(async (client) => {
      const states = await client.manager.sessionStates();
      // Listed after the probe, so a session closed meanwhile is not shown.
      const now = Date.now();
      return client.manager.listSessions().map((info) => toViewSession(client, info, states.get(info.sessionId), now));
    }),
  );
  const sessions = perClient.flat().sort((a, b) => b.started_at.localeCompare(a.started_at));
  return { input, sessions };
}
