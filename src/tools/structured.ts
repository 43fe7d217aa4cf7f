import type { ExecResponse, SessionInfo } from '../manager/types.js';
import type { CloseSessionResult, ExecResult, SessionListResult } from './output-schemas.js';

/** The manager's camelCase response as the snake_case structured result; optional fields only when present. */
export function toExecResult(response: ExecResponse): ExecResult {
  return {
    chunk_id: response.chunkId,
    wall_time_seconds: response.wallTimeSeconds,
    output: response.output,
    original_token_count: response.originalTokenCount,
    ...(response.exitCode !== undefined ? { exit_code: response.exitCode } : { session_id: response.sessionId }),
    ...(response.signal ? { signal: response.signal } : {}),
    state: response.state,
    ...(response.secretPrompt ? { secret_prompt: true } : {}),
    ...(response.warnings.length > 0 ? { warnings: response.warnings } : {}),
    ...(response.screen ? { screen: response.screen } : {}),
  };
}

export function toSessionList(sessions: SessionInfo[]): SessionListResult {
  return {
    sessions: sessions.map((s) => ({
      session_id: s.sessionId,
      command: s.command,
      tty: s.tty,
      ...(s.pid !== undefined ? { pid: s.pid } : {}),
      executor: s.executor,
      location: s.location,
      started_at: s.startedAt.toISOString(),
      last_used_at: s.lastUsedAt.toISOString(),
      exited: s.exited,
      ...(s.exitCode !== undefined ? { exit_code: s.exitCode } : {}),
      buffered_bytes: s.bufferedBytes,
    })),
  };
}

export function toCloseSessionResult(closed: { sessionId: number; exitCode: number | undefined }): CloseSessionResult {
  return { session_id: closed.sessionId, ...(closed.exitCode !== undefined ? { exit_code: closed.exitCode } : {}) };
}
