import { TOKEN_ENV, type ServeAuth } from './serve-auth.js';

/** The name clients register us under; their tools then appear as e.g. mcp__unified-exec__exec_command. */
const CLIENT_NAME = 'unified-exec';
/** write_stdin polls may wait up to 300 s, as long as Codex's default MCP tool timeout (300 s): leave them room. */
const CODEX_TOOL_TIMEOUT_SEC = 330;
/**
 * `codex exec` refuses tools annotated destructiveHint under its default approval settings; the server's own
 * sandbox and approval policy still apply to each command.
 */
const CODEX_APPROVAL_LINE = 'default_tools_approval_mode = "approve"';
/** --header needs 0.16.6 or later; on Node 20 an unversioned npx resolves 0.15.0, so the version is named. */
const INSPECTOR = 'npx @modelcontextprotocol/inspector@0.17.5';

export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The token as the printed shell lines spell it, for `export` and inside the header. A token made at start is
 * printed (nowhere else to find it); one the operator keeps in a file or the environment stays there, and the lines
 * read it, so a secret they hold is not copied into output that may be logged.
 */
function spellToken(auth: ServeAuth): { value: string; header: string } | undefined {
  switch (auth.from) {
    case 'none':
      return undefined;
    case 'generated':
      return { value: shellQuote(auth.token), header: shellQuote(`Authorization: Bearer ${auth.token}`) };
    case 'file': {
      const read = `$(cat ${shellQuote(auth.path)})`;
      return { value: `"${read}"`, header: `"Authorization: Bearer ${read}"` };
    }
    case 'env':
      return { value: `"$${TOKEN_ENV}"`, header: `"Authorization: Bearer $${TOKEN_ENV}"` };
  }
}

/** Copy-paste lines for connecting Codex CLI, Claude Code and the MCP Inspector CLI to a running `serve`. */
export function httpConnectHints(url: string, auth: ServeAuth): string {
  const token = spellToken(auth);
  const header = token === undefined ? '' : ` --header ${token.header}`;
  const lines = ['Connect Codex CLI:'];
  // Codex reads the token from the variable; from `env`, it is already set where this server was started.
  if (token !== undefined && auth.from !== 'env') lines.push(`  export ${TOKEN_ENV}=${token.value}`);
  lines.push(
    `  codex mcp add ${CLIENT_NAME} --url ${url}${token === undefined ? '' : ` --bearer-token-env-var ${TOKEN_ENV}`}`,
    '  or put this in ~/.codex/config.toml:',
    `    [mcp_servers.${CLIENT_NAME}]`,
    `    url = ${JSON.stringify(url)}`,
  );
  if (token !== undefined) lines.push(`    bearer_token_env_var = ${JSON.stringify(TOKEN_ENV)}`);
  lines.push(
    `    tool_timeout_sec = ${CODEX_TOOL_TIMEOUT_SEC}`,
    `    ${CODEX_APPROVAL_LINE}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add --transport http ${CLIENT_NAME} ${url}${header}`,
    '',
    'Check it with the MCP Inspector CLI:',
    `  ${INSPECTOR} --cli ${url} --transport http${header} --method tools/list`,
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
    `    ${CODEX_APPROVAL_LINE}`,
    '',
    'Connect Claude Code:',
    `  claude mcp add ${CLIENT_NAME} -- ${line}`,
  ].join('\n');
}

/**
 * Where to watch the sessions in a browser (the live view). The page reads the token from the address's fragment
 * (`#token=`), which a browser never sends to a server; as above, a token the operator keeps in a file or the
 * environment is not printed: the line that prints the address reads it.
 */
export function viewHints(viewUrl: string, auth: ServeAuth, input: boolean): string {
  const typing = input ? ' (it can type into them: --view-input)' : '';
  switch (auth.from) {
    case 'none':
      return [`Watch the sessions in a browser${typing}:`, `  ${viewUrl}`].join('\n');
    case 'generated':
      return [`Watch the sessions in a browser${typing}:`, `  ${viewUrl}#token=${encodeURIComponent(auth.token)}`].join(
        '\n',
      );
    case 'file':
    case 'env': {
      const read = auth.from === 'env' ? `$${TOKEN_ENV}` : `$(cat ${shellQuote(auth.path)})`;
      return [
        `Watch the sessions in a browser${typing}, at the address this prints (or open ${viewUrl} and give it the token):`,
        `  echo "${viewUrl}#token=${read}"`,
      ].join('\n');
    }
  }
}
