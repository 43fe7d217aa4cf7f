import { truncateForModel } from '../buffer/truncate.js';
import { SHELL_OUTPUT_MAX_TOKENS } from '../manager/constants.js';
import type { ShellResponse } from '../manager/requests.js';
import type { ShellResult } from './output-schemas.js';

/** Seconds rounded to one decimal, as Codex reports a shell call's duration; never negative, never NaN. */
export function shellDurationSeconds(durationMs: number): number {
  return Number.isFinite(durationMs) && durationMs > 0 ? Math.round(durationMs / 100) / 10 : 0;
}

/** A shell call's reply: the text a model reads and the structured result beside it, from one truncation. */
export function shellReply(
  response: ShellResponse,
  maxOutputTokens = SHELL_OUTPUT_MAX_TOKENS,
): { text: string; structured: ShellResult } {
  const output = truncateForModel(response.output, maxOutputTokens).text;
  const seconds = shellDurationSeconds(response.durationMs);
  // Codex serializes the duration as a float, so a whole number keeps its `.0` (`0.0`, `2.0`), which JSON.stringify
  // would drop. Strings are escaped alike by both (`\n`, `\u001b`; non-ASCII as is).
  const text = `{"output":${JSON.stringify(output)},"metadata":{"exit_code":${response.exitCode},"duration_seconds":${seconds.toFixed(1)}}}`;
  return {
    text,
    structured: { exit_code: response.exitCode, output, duration_seconds: seconds, timed_out: response.timedOut },
  };
}

/**
 * The reply a model reads for a shell call, byte for byte as Codex answers its `shell` tool: one line of JSON,
 * `{"output":"…","metadata":{"exit_code":N,"duration_seconds":S}}`, the same shape for a success, a non-zero exit
 * and a timeout. Output over the budget keeps its head and tail behind a warning, as exec_command's does.
 */
export function formatShellResponse(response: ShellResponse, maxOutputTokens = SHELL_OUTPUT_MAX_TOKENS): string {
  return shellReply(response, maxOutputTokens).text;
}
