import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isInitializeRequest, type RequestId } from '@modelcontextprotocol/server';
import { invalidArgument } from '../manager/errors.js';
import type { ManagerOptions } from '../manager/types.js';
import { connectionTimeouts, limitConnections } from '../net/connection-limits.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from '../net/defaults.js';
import {
  CLIENT_CAP_RETRY_AFTER_S,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_CLIENTS,
  MCP_PATH,
  MIN_TOKEN_BYTES,
} from './defaults.js';
import { buildGuardPolicy, checkRequest, hostWithPort, isLoopbackHost, isWildcardHost } from './request-guard.js';
import { policyFor, type HttpRoutes } from './http-routes.js';
import type { McpServerOptions } from './server.js';
import { ClientRegistry } from './client-registry.js';
import { requestIdsOf } from './open-calls.js';
import { refuseSandboxedPeers } from '../linux/sandboxed-peer.js';
import { connectionPeer } from '../linux/connection-peer.js';
import { TOO_DEEP } from './line-guard.js';
import { nestsDeeperThan } from '../util/json-depth.js';

/** Generous for write_stdin payloads, small enough that a hostile body cannot balloon memory. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerOptions extends McpServerOptions {
  /** Default 127.0.0.1. A non-loopback address needs `token`. */
  host?: string;
  /** Default 8765; 0 picks a free port. */
  port?: number;
  /** Bearer token every request must carry; at least 16 bytes. */
  token?: string;
  /** More Host names to accept (e.g. a DNS name of this machine when bound to 0.0.0.0). */
  allowedHosts?: string[];
  managerOptions?: ManagerOptions;
  /** A client with no call in flight and no request for this long is ended with its processes. Default 30 min. */
  clientIdleTimeoutMs?: number;
  /**
   * A client that held its event stream open and then closed every connection is ended after this long without a
   * request, as if it had sent DELETE. Default 30 s.
   */
  clientDisconnectGraceMs?: number;
  /** MCP clients at once, initialize-only ones too; at the cap the least recently active idle one ends. Default 64. */
  maxClients?: number;
  /**
   * Open TCP connections. At the cap a new one closes the oldest that never carried the token; if all did, the new
   * one is closed. Default 256.
   */
  maxConnections?: number;
  /** A connection that has not sent a request's headers within this is closed (slowloris). Default 5 s. */
  headersTimeoutMs?: number;
  /** Where log lines go (never stdout for a stdio server; the CLI uses stderr). */
  log?: (line: string) => void;
  /** More endpoints beside /mcp (the CLI's live view), made once the clients exist; checked as /mcp is. */
  routes?: (clients: ClientRegistry) => HttpRoutes;
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:8765/mcp. */
  url: string;
  host: string;
  port: number;
  clients: ClientRegistry;
  /** Ends every client session (terminating their processes) and stops listening. */
  close(): Promise<void>;
}

/** MCP over Streamable HTTP, guarded against DNS rebinding and, with a token, against anyone without it. */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  const log = options.log ?? (() => undefined);
  if (options.token !== undefined && Buffer.byteLength(options.token) < MIN_TOKEN_BYTES) {
    throw invalidArgument(`A token must be at least ${MIN_TOKEN_BYTES} bytes long`);
  }
  if (!isLoopbackHost(host) && !options.token) {
    throw invalidArgument(
      `Refusing to listen on ${host} without a token: anyone who can reach it could run commands as you. Give it a token (the CLI makes one unless --no-auth; clients then send "Authorization: Bearer <token>"), or keep the default 127.0.0.1.`,
    );
  }
  const maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
  const registry = new ClientRegistry({
    managerOptions: options.managerOptions ?? {},
    serverOptions: {
      version: options.version,
      tools: options.tools,
      structuredOutput: options.structuredOutput,
      stateLines: options.stateLines,
      alwaysLoad: options.alwaysLoad,
    },
    log,
    ...(options.clientIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.clientIdleTimeoutMs }),
    ...(options.clientDisconnectGraceMs === undefined ? {} : { disconnectGraceMs: options.clientDisconnectGraceMs }),
    maxClients,
  });
  const routes = options.routes?.(registry);
  let policy = buildGuardPolicy({ host, port: 0 });
  const httpServer = createServer(
    connectionTimeouts(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS),
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        log(`request failed: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal server error');
        else res.end();
      });
    },
  );
  // A sandboxed command holding the token must not get in either: judged once the token shows (peers.admits).
  const peers = refuseSandboxedPeers(log);
  const gate = limitConnections(httpServer, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, log, connectionPeer);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const extra = routes?.handles(url.pathname) ? routes : undefined;
    const isPublic = extra?.isPublic(url.pathname) ?? false;
    const verdict = checkRequest(
      { host: req.headers.host, origin: req.headers.origin, authorization: req.headers.authorization },
      policyFor(policy, extra, url.pathname),
    );
    if (verdict.ok && !isPublic) {
      // Closed, unanswered, when a sandboxed process holds its other end.
      if (!peers.admits(req.socket)) return;
      gate.authenticate(req.socket);
    }
    // Without the token a connection gets one answer, so it cannot be held open as keep-alive.
    if (!gate.isAuthenticated(req.socket)) res.setHeader('connection', 'close');
    if (!verdict.ok) {
      res.writeHead(verdict.status, {
        'content-type': 'text/plain; charset=utf-8',
        ...(verdict.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
      });
      res.end(`${verdict.message}\n`);
      return;
    }
    if (extra) return extra.handle(req, res, url);
    if (url.pathname !== MCP_PATH) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Not found: the MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    const body = req.method === 'POST' ? await readJsonBody(req, res) : undefined;
    if (body === INVALID) return;
    const clientId = req.headers['mcp-session-id'];
    if (typeof clientId === 'string') {
      if (!(await registry.handle(clientId, req, res, body)))
        sendJsonRpcError(res, 404, -32001, `Session not found: ${clientId} has ended; initialize a new session`);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const outcome = await registry.open(req, res, body);
      const [id] = requestIdsOf(body);
      if (outcome === 'full') {
        sendJsonRpcError(
          res,
          503,
          -32000,
          `Server busy: ${maxClients} MCP client sessions are open (--max-clients) and every one has a call in flight; retry in ${CLIENT_CAP_RETRY_AFTER_S} s`,
          { id, headers: { 'retry-after': String(CLIENT_CAP_RETRY_AFTER_S) } },
        );
      } else if (outcome === 'closing') {
        sendJsonRpcError(res, 503, -32000, 'Server shutting down', { id });
      }
      return;
    }
    sendJsonRpcError(
      res,
      400,
      -32000,
      'Bad Request: send an initialize request first, then pass its mcp-session-id header',
    );
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  const interfaceAddresses = isWildcardHost(host)
    ? Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address))
    : [];
  policy = buildGuardPolicy({
    host,
    port,
    ...(options.token ? { token: options.token } : {}),
    extraHosts: options.allowedHosts ?? [],
    interfaceAddresses,
  });
  const urlHost = isWildcardHost(host) ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostWithPort(urlHost, port)}${MCP_PATH}`,
    host,
    port,
    clients: registry,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
        await registry.closeAll();
        // Open SSE streams would hold close() forever.
        httpServer.closeAllConnections();
        await stopped;
      })()),
  };
}

const INVALID = Symbol('invalid body');

async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      sendJsonRpcError(res, 413, -32600, `Request body over ${MAX_BODY_BYTES} bytes`);
      return INVALID;
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (nestsDeeperThan(text)) {
    sendJsonRpcError(res, 400, -32700, `Parse error: ${TOO_DEEP}`);
    return INVALID;
  }
  try {
    return JSON.parse(text);
  } catch {
    sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    return INVALID;
  }
}

function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  extra: { id?: RequestId | undefined; headers?: Record<string, string> } = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...extra.headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: extra.id ?? null }));
}
