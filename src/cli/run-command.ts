import { formatResponse } from '../manager/format.js';
import { UnifiedExecManager } from '../manager/manager.js';
import type { ExecResponse, ManagerOptions } from '../manager/types.js';
import { log, writeTo } from './log.js';
import { exitOnSignals } from './signals.js';

/** Each reply ends with a newline; a blank line separates replies when a command needs more than one. */
function printReply(reply: ExecResponse, first: boolean): void {
  const text = formatResponse(reply, { stateLines: true }); // a person reads it
  // A closed stdout (`run ... | head`) drops the rest; the command still runs to its exit code.
  writeTo(process.stdout, `${first ? '' : '\n'}${text}${text.endsWith('\n') ? '' : '\n'}`);
}

/**
 * One command, start to finish: prints the exec_command reply, then a write_stdin poll reply for as long as it
 * runs, and resolves with its exit code.
 */
export async function runOnce(options: {
  cmd: string;
  tty: boolean;
  yieldMs: number;
  managerOptions: ManagerOptions;
}): Promise<number> {
  // One command: it would run before a snapshot of the login profile is ready, so none is taken (a real login shell).
  const manager = new UnifiedExecManager({ ...options.managerOptions, shellSnapshot: false });
  exitOnSignals(() => manager.shutdown(), log);
  try {
    let reply: ExecResponse = await manager.execCommand({
      command: options.cmd,
      tty: options.tty,
      yieldTimeMs: options.yieldMs,
    });
    printReply(reply, true);
    while (reply.sessionId !== undefined) {
      reply = await manager.writeStdin({ sessionId: reply.sessionId, yieldTimeMs: options.yieldMs });
      printReply(reply, false);
    }
    return reply.exitCode ?? 1;
  } finally {
    await manager.shutdown();
  }
}
