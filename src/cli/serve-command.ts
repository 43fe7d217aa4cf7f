import type { ManagerOptions } from '../manager/types.js';
import { startHttpServer } from '../mcp/http-server.js';
import type { ServeSettings } from './cli-settings.js';
import { VIEW_PATH } from '../view/constants.js';
import { findXterm } from '../view/static-files.js';
import { viewRoutes } from '../view/view-routes.js';
import { httpConnectHints, viewHints } from './connect-hints.js';
import { log, writeTo } from './log.js';
import { TOKEN_ENV, type ServeAuth } from './serve-auth.js';
import { policyLine } from './server-policy.js';
import { exitOnSignals } from './signals.js';
import { hideTokenFiles, noAuthWarning } from './token-auth.js';

/** The line under the URL: what a client needs to get in. A token made at start is only ever printed on stdout. */
function authLine(auth: ServeAuth): string {
  switch (auth.from) {
    case 'none':
      return 'No token (--no-auth): every local user can connect.';
    case 'generated':
      return `Every request needs the bearer token below, made at start; keep one across restarts in ${TOKEN_ENV} or --token-file.`;
    case 'env':
      return `Every request needs the bearer token in ${TOKEN_ENV}; the lines below read it from there.`;
    case 'file':
      return `Every request needs the bearer token in ${auth.path}; the lines below read it from there.`;
  }
}

/** `serve`: listens, prints where and how to connect, and runs until a signal ends it (and every session). */
export async function serve(
  options: ServeSettings & { auth: ServeAuth; managerOptions: ManagerOptions; version: string },
): Promise<void> {
  const { auth } = options;
  if (auth.from === 'none') log(noAuthWarning());
  const xterm = options.noView ? undefined : findXterm();
  if (xterm !== undefined && 'problem' in xterm) log(`warning: ${xterm.problem}`);
  hideTokenFiles(auth, options.managerOptions.cwd ?? process.cwd());
  const server = await startHttpServer({
    host: options.host,
    port: options.port,
    ...(auth.from === 'none' ? {} : { token: auth.token }),
    allowedHosts: options.allowHosts,
    tools: options.tools,
    structuredOutput: options.structuredOutput,
    stateLines: options.stateLines,
    alwaysLoad: !options.deferTools,
    managerOptions: options.managerOptions,
    clientIdleTimeoutMs: options.idleTimeoutS * 1000,
    clientDisconnectGraceMs: options.disconnectGraceS * 1000,
    maxClients: options.maxClients,
    maxConnections: options.maxConnections,
    headersTimeoutMs: options.headersTimeoutS * 1000,
    version: options.version,
    log,
    ...(options.noView ? {} : { routes: (clients) => viewRoutes(clients, { input: options.viewInput, log }) }),
  });
  exitOnSignals(() => server.close(), log, 0);
  writeTo(
    process.stdout,
    [
      `unified-exec ${options.version} MCP server (Streamable HTTP) listening on ${server.url}`,
      authLine(auth),
      policyLine(options.managerOptions),
      'Stop it with Ctrl-C; every process it started stops with it.',
      '',
      httpConnectHints(server.url, auth),
      '',
      ...(options.noView ? [] : [viewHints(new URL(VIEW_PATH, server.url).href, auth, options.viewInput), '']),
    ].join('\n'),
  );
}
