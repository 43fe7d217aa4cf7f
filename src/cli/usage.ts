import { stdioConnectHints } from './connect-hints.js';
import { flagHelp, flagSynopsis, HELP_WIDTH, wrap } from './flag-help.js';
import { FLAG_TABLES } from './cli-settings.js';

/** `  unified-exec serve [--host ADDR] ...`, its options wrapped under themselves. */
function synopsis(command: string, options: string): string {
  const head = `  ${command} `;
  const [first = '', ...rest] = wrap(options, HELP_WIDTH - head.length);
  return [head + first, ...rest.map((line) => ' '.repeat(head.length) + line)].join('\n');
}

/** --help text, generated from the settings tables. `launch` is how to start this CLI, for the stdio connect lines. */
export function usage(version: string, launch: string[]): string {
  return `unified-exec ${version}: shell sessions for LLM agents (Codex-compatible exec_command / write_stdin)

Usage:
${synopsis('unified-exec mcp', `${flagSynopsis(FLAG_TABLES.mcp)} [session options]`)}
      MCP server on stdin/stdout (stdout carries only protocol; logs go to stderr).
${synopsis('unified-exec serve', `${flagSynopsis(FLAG_TABLES.serve)} [session options]`)}
      MCP server over Streamable HTTP at http://ADDR:N/mcp. Each MCP client session gets its own
      shell sessions, ended (processes terminated) when the client session ends. A web page at
      http://ADDR:N/view shows every client's sessions live (the live view).
${synopsis('unified-exec run', `${flagSynopsis(FLAG_TABLES.run)} [session options] -- <command...>`)}
      Run one command line, print each reply as a model would see it, exit with its exit code.
${synopsis('unified-exec exec-server', `[--listen ws://IP:PORT|stdio] [--token-file FILE | --no-auth] ${flagSynopsis(FLAG_TABLES.execServer)}`)}
      Codex's exec-server protocol (JSON-RPC over WebSocket, or newline-delimited JSON on stdio)
      run on unified-exec's processes. Prints the bound URL as the first line of stdout (default
      --listen ws://127.0.0.1:0, a free port), then how to connect Codex CLI (environments.toml)
      and unified-exec. Like serve, every connection needs Authorization: Bearer TOKEN: the token
      is in --token-file FILE (mode 600), else $UNIFIED_EXEC_EXEC_SERVER_TOKEN, else made at start
      and printed. --no-auth lets every local user in (loopback only). --max-connections and
      --headers-timeout-s hold as for serve. Stdio needs no token and takes none of these.
      Ctrl-C or SIGTERM ends every process it started.
  unified-exec --help | --version

Mcp options:
${flagHelp(FLAG_TABLES.mcp)}

Serve options (and --tool, --structured-output as for mcp):
${flagHelp(FLAG_TABLES.serve.filter((leaf) => !FLAG_TABLES.mcp.some((shared) => shared.name === leaf.name)))}

Run options:
${flagHelp(FLAG_TABLES.run)}

Session options (every command):
${flagHelp([...FLAG_TABLES.config, ...FLAG_TABLES.manager])}

Stdio setup:
${stdioConnectHints(launch)
  .split('\n')
  .map((line) => (line === '' ? '' : `  ${line}`))
  .join('\n')}
`;
}
