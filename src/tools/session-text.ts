import type { CloseSessionResult, SessionListResult } from './output-schemas.js';

/** Long or multi-line commands would swamp the listing; the first line, capped, is enough to recognise one. */
const COMMAND_PREVIEW_CHARS = 120;

function previewCommand(command: string): string {
  const firstLine = command.split('\n', 1)[0] ?? '';
  if (firstLine === command && command.length <= COMMAND_PREVIEW_CHARS) return command;
  return `${firstLine.slice(0, COMMAND_PREVIEW_CHARS)}…`;
}

/** The text a model reads for list_sessions: one line per session, the id first so it is easy to pick out. */
export function formatSessionList(result: SessionListResult): string {
  if (result.sessions.length === 0) return 'No sessions are open.';
  const lines = [`Open sessions: ${result.sessions.length}`];
  for (const s of result.sessions) {
    const status = s.exited
      ? `exited with code ${s.exit_code ?? 'unknown'} (read its last output with write_stdin)`
      : 'running';
    // Where it runs only matters once there is more than one place: a local-only listing reads as it always did.
    const where = s.executor === 'local' ? '' : `on ${s.executor} (${s.location}); `;
    const pid = s.pid === undefined ? '' : `pid ${s.pid}; `;
    lines.push(
      `Session ID ${s.session_id}: ${status}; ${s.tty ? 'tty' : 'no tty'}; ${where}${pid}started ${s.started_at}; last used ${s.last_used_at}; ${s.buffered_bytes} bytes of output waiting; command: ${previewCommand(s.command)}`,
    );
  }
  return lines.join('\n');
}

export function formatClosedSession(result: CloseSessionResult): string {
  const how = result.exit_code === undefined ? '' : ` (process ended with code ${result.exit_code})`;
  return `Session ID ${result.session_id} closed${how}`;
}
