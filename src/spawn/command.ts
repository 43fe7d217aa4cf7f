import type { CommandRequest, SpawnOptions } from './types.js';

/** The argv of a command request: the shell with `-c`/`-lc` and the line, or the argv as given. */
export function commandArgv(command: CommandRequest['command']): string[] {
  if ('argv' in command) return [...command.argv];
  return [command.shell, command.login ? '-lc' : '-c', command.script];
}

/**
 * A command request as an executor elsewhere spawns it (an exec-server, a container): the shell line or argv as is,
 * the directory as asked ('' for that side's own), no environment of this machine's but the policy to build one
 * there. The sandbox, when that side lays one, is the caller's to add.
 */
export function specElsewhere(request: CommandRequest): SpawnOptions {
  // Refused before anything starts: its stdin could be written but never closed (neither protocol closes it alone).
  if (!request.tty && request.stdin) {
    throw new Error('input for a command on pipes needs this machine: elsewhere its stdin cannot be closed');
  }
  return {
    argv: commandArgv(request.command),
    cwd: request.workdir ?? '',
    env: {},
    envPolicy: request.env,
    tty: request.tty,
    ...(request.tty ? { cols: request.cols, rows: request.rows } : { pipeStdin: request.stdin === true }),
  };
}
