import type { ExecResponse, ScreenView } from './types.js';

/** How the text is written beyond Codex's own lines. */
export interface FormatOptions {
  /**
   * Add our lines about the session's state after its id: `Process is waiting for input`, and `Terminal echo is off
   * (password prompt)`. Off by default, so the text is Codex's byte for byte; the state is in the structured result.
   */
  stateLines?: boolean;
}

/**
 * The text a model reads, line for line as Codex's unified exec writes it; our extra lines (the state lines when
 * asked for, warnings, a screen) sit where a client that only knows the compat part skips over them.
 */
export function formatResponse(response: ExecResponse, options: FormatOptions = {}): string {
  if (response.patch) return formatPatchResponse(response, response.patch.durationMs);
  const lines = [`Chunk ID: ${response.chunkId}`, `Wall time: ${response.wallTimeSeconds.toFixed(4)} seconds`];
  if (response.exitCode !== undefined) {
    lines.push(`Process exited with code ${response.exitCode}`);
  } else if (response.sessionId !== undefined) {
    lines.push(`Process running with session ID ${response.sessionId}`);
  }
  if (options.stateLines && response.state === 'waiting_for_input') lines.push('Process is waiting for input');
  if (options.stateLines && response.secretPrompt) lines.push('Terminal echo is off (password prompt)');
  lines.push(`Original token count: ${response.originalTokenCount}`);
  lines.push(...response.warnings);
  if (response.screen) lines.push(...screenSection(response.screen));
  lines.push('Output:');
  return `${lines.join('\n')}\n${response.output}`;
}

/**
 * A patch applied for exec_command, as Codex answers one: its apply_patch result (exit code, duration in seconds to
 * one decimal, the summary or the failure), under a short header when it succeeded. Our warnings (a sandbox
 * refusal, say) follow the output.
 */
function formatPatchResponse(response: ExecResponse, durationMs: number): string {
  const seconds = Number.isFinite(durationMs) && durationMs > 0 ? Math.round(durationMs / 100) / 10 : 0;
  const result = `Exit code: ${response.exitCode}\nWall time: ${seconds} seconds\nOutput:\n${response.output}`;
  const warnings = response.warnings.map((line) => `${line}\n`).join('');
  if (response.exitCode !== 0) return `${result}${warnings}`;
  return `Wall time: ${response.wallTimeSeconds.toFixed(4)} seconds\nOutput:\n${result}${warnings}`;
}

/**
 * The screen as a fenced block under a line that says its size and where the cursor is (1-based, as a person counts).
 * Rows keep their leading spaces and lose trailing ones; blank rows at the bottom are left out, down to the cursor.
 */
function screenSection(screen: ScreenView): string[] {
  const rows = screen.lines.map((line) => line.trimEnd());
  let shown = rows.length;
  while (shown > screen.cursor.row + 1 && rows[shown - 1] === '') shown--;
  const what = screen.alternate
    ? '; a full-screen program, so Output leaves out what it drew'
    : screen.cursorAddressed
      ? '; the program draws by moving the cursor, so Output leaves out what it drew'
      : '';
  const blank = shown < rows.length ? `; rows ${shown + 1}-${rows.length} blank` : '';
  return [
    `Screen ${screen.cols}x${screen.rows} (cursor at row ${screen.cursor.row + 1}, column ${screen.cursor.col + 1}${blank}${what}):`,
    '```',
    ...rows.slice(0, shown),
    '```',
  ];
}
