import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { connectionTimeouts, limitConnections } from '../net/connection-limits.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from '../net/defaults.js';
import { sameToken } from '../net/same-token.js';
import { messageBytes } from '../net/ws-data.js';
import { loadWs } from '../net/ws-module.js';
import { EXEC_SERVER_MAX_MESSAGE_BYTES } from './protocol.js';
import type { ExecServer } from './server.js';
import { refuseSandboxedPeers } from '../linux/sandboxed-peer.js';
import { connectionPeer } from '../linux/connection-peer.js';

export interface WebSocketListenOptions {
  host: string;
  /** 0: any free port. */
  port: number;
  /** When set, every handshake must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest frame taken; a bigger one closes that connection (default 16 MiB, as the real server). */
  maxPayloadBytes?: number;
  /**
   * Open TCP connections. At the cap a new one closes one that never carried the token (see limitConnections); if
   * every one did, the new one is closed. Default 256.
   */
  maxConnections?: number;
  /** A connection that has not sent its upgrade request's headers within this is closed (slowloris). Default 5 s. */
  headersTimeoutMs?: number;
}

export interface WebSocketListener {
  /** `ws://HOST:PORT`, with the port actually bound. */
  readonly url: string;
  /** Stops listening and closes every connection (the server's sessions are not ended: see ExecServer.close). */
  close(): Promise<void>;
}

/** Why the handshake is refused, in the real server's words, or undefined to let it in. */
function refusal(
  headers: IncomingMessage['headers'],
  token: string | undefined,
): { status: number; text: string } | undefined {
  // Browsers always send Origin, our clients and Codex's never do: a web page must not reach a local exec-server.
  if (headers.origin !== undefined) return { status: 403, text: '' };
  if (token === undefined) return undefined;
  const header = headers.authorization;
  if (header === undefined) return { status: 401, text: 'missing websocket bearer token' };
  if (!header.startsWith('Bearer ')) return { status: 401, text: 'invalid authorization header' };
  if (!sameToken(header.slice('Bearer '.length), token)) return { status: 401, text: 'invalid websocket bearer token' };
  return undefined;
}

/** Answers, then closes: a connection without the token gets one answer, so it cannot be held open. */
function reject(socket: Duplex, status: number, text: string): void {
  const reason = status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    // Node's HTTP sockets stay half open until the peer ends its side too; one that never does would stay for ever.
    () => socket.destroy(),
  );
}

/** Serves `server` over WebSocket on host:port: one JSON-RPC message per frame (text, or binary holding JSON). */
export async function listenWebSocket(server: ExecServer, options: WebSocketListenOptions): Promise<WebSocketListener> {
  const { WebSocketServer } = await loadWs();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? EXEC_SERVER_MAX_MESSAGE_BYTES,
  });
  const http: Server = createServer(
    connectionTimeouts(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS),
    (_request, response) => {
      // Only an upgrade request can carry the token, so this connection gets one answer and closes.
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      response.end("Connection header did not include 'upgrade'");
    },
  );
  // A command the server runs sandboxed must not reach the server, even with the token: judged once it shows.
  const peers = refuseSandboxedPeers((line) => server.log(line));
  const gate = limitConnections(
    http,
    options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    (line) => server.log(line),
    connectionPeer,
  );
  http.on('upgrade', (request, socket, head) => {
    socket.on('error', () => undefined);
    const refused = refusal(request.headers, options.token);
    if (refused !== undefined) return reject(socket, refused.status, refused.text);
    if (!peers.admits(request.socket)) return;
    // From here its connection is never closed to make room for another (with --no-auth: once past the Origin check).
    gate.authenticate(request.socket);
    wss.handleUpgrade(request, socket, head, (ws) => attach(server, ws, request));
  });
  http.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `ws://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function attach(server: ExecServer, ws: WebSocket, request: IncomingMessage): void {
  const peer = `${request.socket.remoteAddress}:${request.socket.remotePort}`;
  let open = true;
  const connection = server.connect({
    label: `websocket ${peer}`,
    send: (text) => {
      if (open && ws.readyState === ws.OPEN) ws.send(text);
    },
    sendBinary: (bytes) => {
      if (open && ws.readyState === ws.OPEN) ws.send(bytes, { binary: true });
    },
    close: () => {
      open = false;
      ws.terminate();
    },
    isAlive: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (!open || ws.readyState !== ws.OPEN) return resolve(false);
        const timer = setTimeout(() => {
          ws.off('pong', answered);
          resolve(false);
        }, timeoutMs);
        const answered = () => {
          clearTimeout(timer);
          resolve(true);
        };
        ws.once('pong', answered);
        ws.ping();
      }),
  });
  ws.on('message', (data: RawData) => {
    connection.receive(messageBytes(data).toString('utf8'));
  });
  ws.on('close', (code) => {
    open = false;
    if (code === 1009) server.log(`websocket ${peer}: closed, a frame was over the size limit`);
    connection.closed();
  });
  ws.on('error', () => undefined);
}
