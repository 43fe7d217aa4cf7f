import { UnifiedExecError, type UnifiedExecErrorCode } from '../manager/errors.js';
import type { ToolName } from './definitions.js';

/** A failed call as data: the text for the model (prefixed the way Codex prefixes it) and a code for programs. */
export interface ToolFailure {
  isError: true;
  text: string;
  code: UnifiedExecErrorCode | 'INTERNAL_ERROR';
  cause: unknown;
}

/** How much of a command an error message quotes back: enough to recognise it, never a 200 KiB echo. */
const QUOTED_CMD_MAX_CHARS = 200;

/** ``exec_command failed for `ls`: …``, `write_stdin failed: Unknown process id 42`: Codex's wording, kept. */
function toolErrorPrefix(name: ToolName, args: unknown): string {
  const cmd = name === 'exec_command' ? (args as { cmd?: unknown } | undefined)?.cmd : undefined;
  if (typeof cmd !== 'string') return `${name} failed`;
  const quoted = cmd.length > QUOTED_CMD_MAX_CHARS ? `${cmd.slice(0, QUOTED_CMD_MAX_CHARS)}…` : cmd;
  return `${name} failed for \`${quoted}\``;
}

export function toolFailure(name: ToolName, args: unknown, error: unknown): ToolFailure {
  const message = error instanceof Error ? error.message : String(error);
  // Codex answers a patch it would not apply with the reason alone.
  const patch = error instanceof UnifiedExecError && error.code === 'PATCH_REJECTED';
  return {
    isError: true,
    text: patch ? message : `${toolErrorPrefix(name, args)}: ${message}`,
    code: error instanceof UnifiedExecError ? error.code : 'INTERNAL_ERROR',
    cause: error,
  };
}
