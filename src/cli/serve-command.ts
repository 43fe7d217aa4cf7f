import type { ManagerOptions } from '../manager/types.js';
import { startHttpServer } from '../mcp/http-server.js';
import type { ServeSettings } from './cli-settings.js';
import { httpConnectHints } from './connect-hints.js';
import { exitOnSignals } from './signals.js';

const log = (line: string) => process.stderr.write(`unified-exec: ${line}\n`);

/** `serve`: listens, prints where and how to connect, and runs until a signal ends it (and every session). */
export async function serve(
  options: ServeSettings & { managerOptions: ManagerOptions; version: string },
): Promise<void> {
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    ...(options.token === undefined ? {} : { token: options.token }),
    allowedHosts: options.allowHosts,
    managerOptions: options.managerOptions,
    clientIdleTimeoutMs: options.idleTimeoutS * 1000,
    version: options.version,
    log,
  });
  exitOnSignals(() => server.close(), log, 0);
  process.stdout.write(
    [
      `unified-exec ${options.version} MCP server (Streamable HTTP) listening on ${server.url}`,
      options.token === undefined
        ? 'No token: only this machine can connect.'
        : 'Every request needs the bearer token.',
      'Stop it with Ctrl-C; every process it started stops with it.',
      '',
      httpConnectHints(server.url, options.token),
      '',
    ].join('\n'),
  );
}
