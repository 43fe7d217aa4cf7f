import { VIEW_API_PATH } from './constants.js';

/** What an API path names: the session list, or one session of one client (`action` absent: the session itself). */
export type ApiTarget =
  | { kind: 'sessions' }
  | { kind: 'session'; clientId: string; sessionId: number; action: 'stream' | 'input' | undefined }
  | { kind: 'unknown' };

/** The client ids the HTTP server makes (UUIDs); anything else cannot name a client. */
const CLIENT_ID = /^[0-9a-f-]{1,64}$/i;
const SESSION_ID = /^\d{1,15}$/;

/**
 * `/view/api/sessions`, `/view/api/sessions/CLIENT/SESSION`, `.../stream`, `.../input`. Session ids are only unique
 * within a client (each client has its own manager), so a session is named by both.
 */
export function parseApiPath(pathname: string): ApiTarget {
  if (!pathname.startsWith(`${VIEW_API_PATH}/`)) return { kind: 'unknown' };
  const [collection, clientId, sessionId, action, ...rest] = pathname.slice(VIEW_API_PATH.length + 1).split('/');
  if (collection !== 'sessions' || rest.length > 0) return { kind: 'unknown' };
  if (clientId === undefined) return { kind: 'sessions' };
  if (!CLIENT_ID.test(clientId) || sessionId === undefined || !SESSION_ID.test(sessionId)) return { kind: 'unknown' };
  if (action !== undefined && action !== 'stream' && action !== 'input') return { kind: 'unknown' };
  return { kind: 'session', clientId, sessionId: Number(sessionId), action };
}
