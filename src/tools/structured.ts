import {
  closedSessionFields,
  execReplyFields,
  sessionInfoFields,
  type CloseSessionResult,
  type ClosedSession,
  type ExecResponse,
  type ExecResult,
  type SessionInfo,
  type SessionListResult,
} from '../manager/replies.js';
import { toWireForm } from '../manager/reply-fields.js';

// The manager's camelCase replies as the snake_case structured results, by the tables of manager/replies.ts.

export function toExecResult(response: ExecResponse): ExecResult {
  return toWireForm(execReplyFields, response);
}

export function toSessionList(sessions: readonly SessionInfo[]): SessionListResult {
  return { sessions: sessions.map((session) => toWireForm(sessionInfoFields, session)) };
}

export function toCloseSessionResult(closed: ClosedSession): CloseSessionResult {
  return toWireForm(closedSessionFields, closed);
}
