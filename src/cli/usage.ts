import { stdioConnectHints } from './connect-hints.js';

/** --help text. `launch` is how to start this CLI, shown in the stdio connect lines. */
export function usage(version: string, launch: string[]): string {
  return `unified-exec ${version}: shell sessions for LLM agents (Codex-compatible exec_command / write_stdin)

Usage:
  unified-exec mcp [session options]
      MCP server on stdin/stdout (stdout carries only protocol; logs go to stderr).
  unified-exec serve [--host ADDR] [--port N] [--token SECRET] [--allow-host NAME]... [--idle-timeout-s N]
                     [session options]
      MCP server over Streamable HTTP at http://ADDR:N/mcp. Each MCP client session gets its own
      shell sessions, ended (processes terminated) when the client session ends.
  unified-exec run [--tty] [--yield-ms N] [session options] -- <command...>
      Run one command line, print each reply as a model would see it, exit with its exit code.
  unified-exec --help | --version

Options:
  --host ADDR        address to listen on (default 127.0.0.1); any non-loopback address requires --token
  --port N           port to listen on (default 8765); 0 picks a free port and prints it
  --token SECRET     require "Authorization: Bearer SECRET" on every request (default: $UNIFIED_EXEC_TOKEN)
  --allow-host NAME  also accept requests addressed to NAME (a DNS name of this machine); repeatable
  --idle-timeout-s N serve: end a client session (and its processes) after N s without a request (default 1800)
  --tty              run: give the command a pseudo-terminal
  --yield-ms N       run: milliseconds to wait before each reply while the command runs (default 10000)

Session options (every command):
  --config FILE          JSON file with any of: cwd, shell, returnOn, maxSessions, maxBackgroundPollMs,
                         outputMaxBytes, maxConcurrentSpawns, maxTotalBufferedBytes, maxWriteBytes,
                         env {inherit, keepSecrets, exclude, includeOnly, set}; flags override it
  --cwd DIR              directory commands run in when they name none (default: the current directory)
  --shell PATH           shell for calls that name none (default: $SHELL, else /bin/bash)
  --return-on MODE       input-wait (default): answer as soon as a terminal program waits for input;
                         deadline: answer only at exit or the yield deadline, as Codex does
  --max-sessions N       live sessions kept before the least recently used is pruned (default 64)
  --env-inherit MODE     all (default), core (HOME, PATH, USER, ...) or none of this environment
  --env-keep-secrets     also pass variables whose names contain KEY, SECRET, TOKEN or PASSWORD
  --env-exclude GLOB     drop matching variable names (case-insensitive; * and ?); repeatable
  --env-include-only GLOB  keep only matching names; repeatable
  --env-set NAME=VALUE   set a variable in every session; repeatable

Stdio setup:
${stdioConnectHints(launch)
  .split('\n')
  .map((line) => (line === '' ? '' : `  ${line}`))
  .join('\n')}
`;
}
