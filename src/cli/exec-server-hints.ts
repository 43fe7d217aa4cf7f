import { EXECUTOR_TOKEN_VAR } from '../executors/registry.js';
import { shellQuote } from './connect-hints.js';
import type { TokenAuth } from './token-auth.js';

/** The environment id the printed Codex configuration gives this server. */
const ENVIRONMENT_ID = 'unified-exec';

/** The line under the URL: what a client needs to get in. */
function authLine(auth: TokenAuth, tokenEnv: string): string {
  switch (auth.from) {
    case 'none':
      return 'No token (--no-auth): every local user can connect.';
    case 'generated':
      return `Every connection needs the bearer token below, made at start; keep one across restarts in ${tokenEnv} or --token-file.`;
    case 'env':
      return `Every connection needs the bearer token in ${tokenEnv}.`;
    case 'file':
      return `Every connection needs the bearer token in ${auth.path}.`;
  }
}

/**
 * How Codex CLI and unified-exec reach the server. Codex sends a token only from `environments.toml`
 * (`auth_bearer_token`, a literal), never with CODEX_EXEC_SERVER_URL; as with serve, a token the operator keeps in a
 * file or the environment is not copied into this output.
 */
function codexLines(url: string, auth: TokenAuth, tokenEnv: string): string[] {
  if (auth.from === 'none') return ['Connect Codex CLI:', `  CODEX_EXEC_SERVER_URL=${url} codex`];
  const token =
    auth.from === 'generated'
      ? JSON.stringify(auth.token)
      : `"<the token in ${auth.from === 'file' ? auth.path : `$${tokenEnv}`}>"`;
  return [
    'Connect Codex CLI: put this in $CODEX_HOME/environments.toml (~/.codex/environments.toml); CODEX_EXEC_SERVER_URL cannot carry a token:',
    `  default = ${JSON.stringify(ENVIRONMENT_ID)}`,
    '  include_local = false',
    '  [[environments]]',
    `  id = ${JSON.stringify(ENVIRONMENT_ID)}`,
    `  url = ${JSON.stringify(url)}`,
    `  auth_bearer_token = ${token}`,
  ];
}

function executorLines(url: string, auth: TokenAuth, tokenEnv: string): string[] {
  const executor = (target: string) => `  unified-exec mcp --executor box=${target}`;
  switch (auth.from) {
    case 'none':
      return [executor(url)];
    case 'file':
      return [executor(shellQuote(`${url}?token-file=${auth.path}`))];
    case 'env':
      return [`  ${EXECUTOR_TOKEN_VAR}="$${tokenEnv}" ${executor(url).trimStart()}`];
    case 'generated':
      return [`  export ${EXECUTOR_TOKEN_VAR}=${shellQuote(auth.token)}`, executor(url)];
  }
}

/** What `exec-server` prints under its URL: who gets in, and copy-paste lines to connect. */
export function execServerHints(url: string, auth: TokenAuth, tokenEnv: string): string {
  return [
    authLine(auth, tokenEnv),
    'Stop it with Ctrl-C; every process it started stops with it.',
    '',
    ...codexLines(url, auth, tokenEnv),
    '',
    'Connect unified-exec:',
    ...executorLines(url, auth, tokenEnv),
  ].join('\n');
}
