import { exec } from '../../src/manager/one-shot.js';
import type { ShellRequest, ShellResponse } from '../../src/manager/requests.js';
import type { ExecSessions } from '../../src/tools/run-tool.js';

/** A shell call answered by the real one-shot exec(): a real process runs. */
async function shellViaExec(request: ShellRequest): Promise<ShellResponse> {
  const outcome = await exec({ command: request.command, cwd: request.cwd, timeoutMs: request.timeoutMs });
  return {
    exitCode: outcome.exitCode,
    output: outcome.aggregatedOutput,
    durationMs: outcome.durationMs,
    timedOut: outcome.timedOut,
  };
}

const unused = (): never => {
  throw new Error('not used by these tests');
};

/** ExecSessions without `shell`, whose session tools are not wired up: enough for calls that never reach them. */
export function sessionsWithoutShell(): ExecSessions {
  return { execCommand: unused, writeStdin: unused, listSessions: () => [], closeSession: unused };
}

/** The same with `shell`, by default the real exec(). */
export function shellSessions(shell: NonNullable<ExecSessions['shell']> = shellViaExec): ExecSessions {
  return { ...sessionsWithoutShell(), shell };
}
