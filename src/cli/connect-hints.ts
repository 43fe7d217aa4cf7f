/** The name clients register us under; their tools then appear as e.g. mcp__unified-exec__exec_command. */
const CLIENT_NAME = 'unified-exec';
const TOKEN_ENV = 'UNIFIED_EXEC_TOKEN';
/** write_stdin polls may wait up to 300 s; Codex's default MCP tool timeout (60 s) would cut them off. */
const CODEX_TOOL_TIMEOUT_SEC = 330;

export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Copy-paste lines for connecting Codex CLI and Claude Code to a running `serve`. */
export function httpConnectHints(url: string, token?: string): string {
  const codexAuth = token === undefined ? '' : ` --bearer-token-env-var ${TOKEN_ENV}`;
  const lines = ['Connect Codex CLI:'];
  if (token !== undefined) lines.push(`  export ${TOKEN_ENV}=${shellQuote(token)}`);
  lines.push(
    `  codex mcp add ${CLIENT_NAME} --url ${url}${codexAuth}`,
    '  or put this in ~/.codex/config.toml:',
    `    [mcp_servers.${CLIENT_NAME}]`,
    `    url = ${JSON.stringify(url)}`,
  );
  if (token !== undefined) lines.push(`    bearer_token_env_var = ${JSON.stringify(TOKEN_ENV)}`);
  lines.push(
    `    tool_timeout_sec = ${CODEX_TOOL_TIMEOUT_SEC}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add --transport http ${CLIENT_NAME} ${url}${
      token === undefined ? '' : ` --header ${shellQuote(`Authorization: Bearer ${token}`)}`
    }`,
  );
  return lines.join('\n');
}

/** The same for the stdio server, which the client starts itself: `launch` is the command line, as argv. */
export function stdioConnectHints(launch: string[]): string {
  const line = launch.map(shellQuote).join(' ');
  const [command = 'unified-exec', ...args] = launch;
  return [
    'Connect Codex CLI:',
    `  codex mcp add ${CLIENT_NAME} -- ${line}`,
    '  or put this in ~/.codex/config.toml:',
    `    [mcp_servers.${CLIENT_NAME}]`,
    `    command = ${JSON.stringify(command)}`,
    `    args = ${JSON.stringify(args)}`,
    `    tool_timeout_sec = ${CODEX_TOOL_TIMEOUT_SEC}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add ${CLIENT_NAME} -- ${line}`,
  ].join('\n');
}
