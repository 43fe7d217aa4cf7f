import type { ExecResponse } from './types.js';

/**
 * The text a model reads, line for line as Codex's unified exec writes it; our extra lines (waiting for input,
 * password prompt, warnings) sit where a client that only knows the compat part skips over them.
 */
export function formatResponse(response: ExecResponse): string {
  const lines = [`Chunk ID: ${response.chunkId}`, `Wall time: ${response.wallTimeSeconds.toFixed(4)} seconds`];
  if (response.exitCode !== undefined) {
    lines.push(`Process exited with code ${response.exitCode}`);
  } else if (response.sessionId !== undefined) {
    lines.push(`Process running with session ID ${response.sessionId}`);
  }
  if (response.state === 'waiting_for_input') lines.push('Process is waiting for input');
  if (response.secretPrompt) lines.push('Terminal echo is off (password prompt)');
  lines.push(`Original token count: ${response.originalTokenCount}`);
  lines.push(...response.warnings);
  lines.push('Output:');
  return `${lines.join('\n')}\n${response.output}`;
}
