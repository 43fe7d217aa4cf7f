/**
 * `unified-exec exec-server`: Codex's exec-server protocol on our process layer, over WebSocket or stdio. Point a
 * Codex CLI at it with CODEX_EXEC_SERVER_URL=ws://HOST:PORT. The server itself loads lazily (node-pty, ws).
 */

import { isLoopbackHost } from '../mcp/request-guard.js';
import { log, writeTo } from './log.js';
import { TOKEN_ENV, resolveServeAuth } from './serve-auth.js';
import { exitOnSignals } from './signals.js';
import { UsageError } from './usage-error.js';

/** Where an exec-server token comes from when no --token-file is given. */
export const EXEC_SERVER_TOKEN_ENV = 'UNIFIED_EXEC_EXEC_SERVER_TOKEN';
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

/**
 * The bearer token: --token-file (a file only its owner may read), else $UNIFIED_EXEC_EXEC_SERVER_TOKEN, else none.
 * None is refused off loopback: anyone who reaches the port could run commands as this user.
 */
export function resolveExecServerToken(
  target: ListenTarget,
  tokenFile: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const fromEnv = env[EXEC_SERVER_TOKEN_ENV];
  let token: string | undefined;
  if (tokenFile !== undefined || fromEnv !== undefined) {
    try {
      // serve's checks (file mode, length, printable) with serve's wording, the variable renamed.
      const auth = resolveServeAuth(
        { host: target.kind === 'ws' ? target.host : '127.0.0.1', noAuth: false, tokenFile },
        { [TOKEN_ENV]: fromEnv },
      );
      token = auth.from === 'none' ? undefined : auth.token;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw new UsageError(error.message.replaceAll(TOKEN_ENV, EXEC_SERVER_TOKEN_ENV));
    }
  }
  if (target.kind === 'ws' && token === undefined && !isLoopbackHost(target.host)) {
    throw new UsageError(
      `Refusing to listen on ${target.host} without a token: give one with --token-file FILE (a file only you can read, e.g. head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE) or ${EXEC_SERVER_TOKEN_ENV}, and send it as Authorization: Bearer TOKEN`,
    );
  }
  return token;
}

export interface ExecServerCommandOptions {
  listen: ListenTarget;
  token: string | undefined;
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
    const { serveStdio } = await import('../exec-server/stdio-transport.js');
    log(`exec-server ${options.version} on stdio`);
    await serveStdio(server);
    await server.close();
    process.exit(0);
  }
  const { listenWebSocket } = await import('../exec-server/ws-transport.js');
  const listener = await listenWebSocket(server, {
    host: options.listen.host,
    port: options.listen.port,
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
  // The first line of stdout is the URL, as with `codex exec-server`: scripts read it to learn the port.
  writeTo(process.stdout, `${listener.url}\n`);
  log(
    `exec-server ${options.version} listening on ${listener.url}${options.token === undefined ? '' : ' (bearer token required)'}; point Codex at it with CODEX_EXEC_SERVER_URL=${listener.url}`,
  );
}
