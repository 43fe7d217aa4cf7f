/**
 * `unified-exec exec-server`: Codex's exec-server protocol on our process layer, over WebSocket or stdio. Point a
 * Codex CLI at it with its environments.toml (which can carry the token). The server itself loads lazily (node-pty, ws).
 */

import type { ExecServerSettings } from './cli-settings.js';
import { log, writeTo } from './log.js';
import { exitOnSignals } from './signals.js';
import { hideTokenFiles, noAuthWarning, resolveTokenAuth, type TokenAuth } from './token-auth.js';
import { UsageError } from './usage-error.js';

/** Where an exec-server token comes from when no --token-file is given. */
const EXEC_SERVER_TOKEN_ENV = 'UNIFIED_EXEC_EXEC_SERVER_TOKEN';
export const DEFAULT_LISTEN = 'ws://127.0.0.1:0';

export type ListenTarget = { kind: 'stdio' } | { kind: 'ws'; host: string; port: number };

/** `ws://IP:PORT` (also `ws://[::1]:PORT`), `stdio` or `stdio://`; pure, throws UsageError. */
export function parseListen(value: string): ListenTarget {
  if (value === 'stdio' || value === 'stdio://') return { kind: 'stdio' };
  const match = /^ws:\/\/(\[[0-9a-fA-F:.]+\]|[^:/[\]]+):(\d{1,5})\/?$/.exec(value);
  const port = match === null ? NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new UsageError(`unsupported --listen URL ${value}; expected \`ws://IP:PORT\` or \`stdio\``);
  }
  return { kind: 'ws', host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** None on stdio (no listener: whoever holds the pipe is the client); else as serve: see token-auth.ts. */
export function resolveExecServerAuth(
  target: ListenTarget,
  settings: { noAuth: boolean; tokenFile?: string | undefined },
  env: Record<string, string | undefined>,
): TokenAuth {
  if (target.kind === 'stdio') {
    if (settings.noAuth || settings.tokenFile !== undefined) {
      throw new UsageError(
        `--listen stdio has no listener, so no token: ${settings.noAuth ? '--no-auth' : '--token-file'} is for ws:// only`,
      );
    }
    return { from: 'none' };
  }
  return resolveTokenAuth({ host: target.host, ...settings }, env, {
    command: 'exec-server',
    tokenEnv: EXEC_SERVER_TOKEN_ENV,
  });
}

export interface ExecServerCommandOptions extends ExecServerSettings {
  listen: ListenTarget;
  auth: TokenAuth;
  version: string;
}

/** Runs until SIGINT/SIGTERM (ws) or the end of stdin (stdio); every process it started ends with it. */
export async function runExecServer(options: ExecServerCommandOptions): Promise<void> {
  // Children inherit this environment through `envPolicy`: the token stays with the server.
  delete process.env[EXEC_SERVER_TOKEN_ENV];
  const { ExecServer } = await import('../exec-server/server.js');
  const server = new ExecServer({ version: options.version, log });
  exitOnSignals(() => server.close(), log, 0);
  if (options.listen.kind === 'stdio') {
    hideTokenFiles(undefined, process.cwd());
    const { serveStdio } = await import('../exec-server/stdio-transport.js');
    log(`exec-server ${options.version} on stdio`);
    await serveStdio(server);
    await server.close();
    process.exit(0);
  }
  const { auth } = options;
  if (auth.from === 'none') log(noAuthWarning());
  hideTokenFiles(auth, process.cwd());
  const { listenWebSocket } = await import('../exec-server/ws-transport.js');
  const { execServerHints } = await import('./exec-server-hints.js');
  const listener = await listenWebSocket(server, {
    host: options.listen.host,
    port: options.listen.port,
    ...(auth.from === 'none' ? {} : { token: auth.token }),
    maxConnections: options.maxConnections,
    headersTimeoutMs: options.headersTimeoutS * 1000,
  });
  // The first line of stdout is the URL, as with `codex exec-server`: scripts read it to learn the port. A token
  // made at start follows it there, and only there.
  writeTo(process.stdout, `${listener.url}\n${execServerHints(listener.url, auth, EXEC_SERVER_TOKEN_ENV)}\n`);
  log(`exec-server ${options.version} listening on ${listener.url}`);
}
