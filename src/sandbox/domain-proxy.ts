import { chmod, rm } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { lookup } from 'node:dns/promises';
import { Socket, connect as tcpConnect, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { Listeners, type Disposable } from '../util/listeners.js';
import { HOST_NAME, matchesDomain, validateDomainPattern } from './domain-match.js';
import { judgeUpstream } from './this-machine.js';

/** How many blocked requests `blocked` keeps (the newest). */
export const MAX_BLOCKED_KEPT = 100;
/** An allowed host that has not accepted the TCP connection by then gets a 502. */
const UPSTREAM_CONNECT_TIMEOUT_MS = 30_000;
/** Header on every 403 the proxy sends itself, so a client can tell it from one the remote server sent. */
export const DENIED_HEADER = 'X-Unified-Exec-Denied';

const AUTHORITY = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/i;
/** Not forwarded: they describe one hop (RFC 9110 §7.6.1), and the proxy already answered any `Expect`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);

/** The socat command that, inside the sandbox, serves the proxy on the sandbox's own 127.0.0.1:`port`. */
export function proxyBridgeArgv(socketPathInside: string, port: number, socat = 'socat'): string[] {
  return [socat, `TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork`, `UNIX-CONNECT:${socketPathInside}`];
}

/** Variables to unset in the sandbox, so that no host bypasses the proxy (there is no other way out anyway). */
export const PROXY_UNSET_ENV: readonly string[] = ['NO_PROXY', 'no_proxy'];

/** Proxy variables for the sandboxed command, in both spellings (curl reads only lower-case `http_proxy`). */
export function proxyEnvironment(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) env[name] = env[name.toLowerCase()] = url;
  return env;
}

/** What the proxy turned away. `at` is from the `now` option (ms since the epoch by default). */
export interface BlockedRequest {
  host: string;
  port: number;
  at: number;
}

export interface DomainProxyOptions {
  /** Entries as `validateDomainPattern` accepts them; `start` throws on the first bad one. */
  allowedDomains: readonly string[];
  /**
   * Where to listen: a path that does not exist yet, in a private folder (the socket exists with the umask's mode for
   * a moment before the chmod).
   */
  socketPath: string;
  /** Default 0o600: enough for bwrap's user namespace, which maps the sandbox's root to the server's own uid. */
  socketMode?: number;
  /** Opens the TCP connection to an address checked (a connecting socket, as net.connect returns). */
  connect?: (address: string, port: number) => Socket;
  /** Every address `host` resolves to (default: the system's resolver, as getaddrinfo answers). */
  resolve?: (host: string) => Promise<string[]>;
  /** This machine's interface addresses (default: os.networkInterfaces(), read at each connection). */
  ownAddresses?: () => string[];
  now?: () => number;
}

/**
 * A filtering HTTP proxy on a unix socket: CONNECT tunnels and absolute-URI HTTP requests to allowed hosts go
 * through; any other host gets a 403 that says which host was blocked and why. Names are resolved here, outside
 * the sandbox, and an address of this machine is never dialled (a 403 too), whatever name led to it.
 */
export class DomainProxy {
  private readonly server = createServer({ requestTimeout: 0 }, (req, res) => this.forward(req, res));
  /** The sockets of CONNECT requests and their tunnels (HTTP's own connections are the server's). */
  private readonly sockets = new Set<Duplex>();
  private readonly blockedListeners = new Listeners<BlockedRequest>();
  private readonly recent: BlockedRequest[] = [];
  private stopping: Promise<void> | undefined;

  private constructor(private readonly options: DomainProxyOptions) {
    this.server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => this.tunnel(req, client, head));
  }

  static async start(options: DomainProxyOptions): Promise<DomainProxy> {
    for (const pattern of options.allowedDomains) {
      const problem = validateDomainPattern(pattern);
      if (problem !== undefined) throw new Error(`Bad allowed domain: ${problem}`);
    }
    const proxy = new DomainProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(options.socketPath, () => {
        proxy.server.off('error', reject);
        // Listening alone does not hold the process up: a command that uses the proxy does, while it runs.
        proxy.server.unref();
        resolve();
      });
    });
    try {
      await chmod(options.socketPath, options.socketMode ?? 0o600);
    } catch (error) {
      await proxy.stop();
      throw error;
    }
    return proxy;
  }

  get socketPath(): string {
    return this.options.socketPath;
  }

  /** The last MAX_BLOCKED_KEPT blocked requests, oldest first. */
  get blocked(): readonly BlockedRequest[] {
    return this.recent;
  }

  onBlocked(listener: (blocked: BlockedRequest) => void): Disposable {
    return this.blockedListeners.add(listener);
  }

  /** Stops listening, ends every open tunnel and request, and removes the socket file. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      this.server.closeAllConnections();
      await closed;
      await rm(this.options.socketPath, { force: true });
      this.blockedListeners.clear();
    })());
  }

  private tunnel(req: IncomingMessage, client: Duplex, head: Buffer): void {
    // Tracked from the start: a client that keeps a refused connection half-open must not hold stop() up.
    this.track(client).on('error', () => undefined);
    const target = parseAuthority(req.url ?? '');
    if (target === undefined) return void client.end(rawResponse(400, 'Bad Request', 'CONNECT needs host:port\n'));
    if (!this.allows(target)) return void client.end(rawResponse(403, 'Forbidden', this.denial(target.host)));
    this.dial(target).then(
      (upstream) => this.join(client, this.track(upstream), head, target),
      (error: DialError) => client.end(dialFailure(target, error, rawResponse)),
    );
  }

  /** Pipes `client` and `upstream` both ways once `upstream` connects; a failure before that is answered. */
  private join(client: Duplex, upstream: Socket, head: Buffer, target: Target): void {
    if (client.destroyed) return void upstream.destroy();
    let established = false;
    const open = () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    };
    // dial answers once connected and checked; an injected connection may still be on its way.
    if (upstream.connecting) upstream.once('connect', open);
    else open();
    upstream.on('error', (error) => {
      if (established) client.destroy();
      else client.end(rawResponse(502, 'Bad Gateway', unreachable(target, error)));
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => {
      if (established) client.destroy();
    });
  }

  /** Keeps `socket` in the set stop() destroys until it closes. */
  private track<S extends Duplex>(socket: S): S {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    return socket;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const target = parseAbsoluteUrl(req.url ?? '');
    if (target === undefined) {
      return sendText(res, 400, 'This is a proxy: send an absolute http:// URI, or CONNECT host:port for HTTPS\n');
    }
    if (!this.allows(target)) return sendText(res, 403, this.denial(target.host));
    const upstream = request({
      host: target.host,
      port: target.port,
      method: req.method,
      path: target.path,
      // Host from the URL that was checked, so a request cannot name another site behind the same address.
      headers: { ...forwardedHeaders(req.headers), host: target.authority },
      createConnection: (_, created) => {
        // Answered once the name is resolved and checked (http.request takes the callback form).
        this.dial(target).then(
          (socket) => created(null, socket),
          (error: Error) => created(error, undefined as never),
        );
        return undefined;
      },
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.headers));
      answer.pipe(res);
    });
    let answered = false; // or the client went away
    res.once('close', () => {
      answered = true;
      upstream.destroy();
    });
    upstream.on('error', (error: DialError) => {
      if (answered || res.headersSent) return void res.destroy();
      dialFailure(target, error, (status, _, body) => void sendText(res, status, body));
    });
    req.pipe(upstream);
  }

  private allows(target: { host: string; port: number }): boolean {
    if (matchesDomain(target.host, this.options.allowedDomains)) return true;
    this.record(target);
    return false;
  }

  private record(target: { host: string; port: number }): void {
    const blocked = { host: target.host, port: target.port, at: (this.options.now ?? Date.now)() };
    this.recent.push(blocked);
    if (this.recent.length > MAX_BLOCKED_KEPT) this.recent.shift();
    this.blockedListeners.emit(blocked);
  }

  private denial(host: string): string {
    const list = this.options.allowedDomains;
    const why = list.length > 0 ? `not in the domain allowlist: ${list.join(', ')}` : 'the domain allowlist is empty';
    return `unified-exec sandbox: network access to ${host} is blocked (${why}). Ask for escalation or add the domain to --allowed-domain.\n`;
  }

  /**
   * A TCP connection to an allowed host, once connected: its name resolved once, every address checked, and the
   * address checked dialled; it fails with ETIMEDOUT if not connected within UPSTREAM_CONNECT_TIMEOUT_MS. Rejects
   * with THIS_MACHINE (recorded as blocked) when any address is this machine's, by the interface list or, once
   * connected, by the kernel's choice of the connection's own address.
   */
  private async dial(target: Target): Promise<Socket> {
    const resolve = this.options.resolve ?? resolveAll;
    const verdict = judgeUpstream(await resolve(target.host), (this.options.ownAddresses ?? interfaceAddresses)());
    if (verdict.kind === 'no-address') throw Object.assign(new Error('no address'), { code: 'ENOTFOUND' });
    if (verdict.kind === 'this-machine') {
      this.record(target);
      throw Object.assign(new Error(`${verdict.address} is this machine's`), { code: THIS_MACHINE, verdict });
    }
    const socket = (this.options.connect ?? connectTo)(verdict.address, target.port);
    return new Promise<Socket>((resolve, reject) => {
      const timer = setTimeout(
        () => socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
        UPSTREAM_CONNECT_TIMEOUT_MS,
      );
      socket.once('close', () => clearTimeout(timer)).once('error', reject);
      socket.once('connect', () => {
        clearTimeout(timer);
        // The kernel's word, where the interface list is silent: Node lists no interface that is up without a
        // carrier (an idle podman or docker bridge, a VPN's tun), whose addresses are this machine's all the same.
        // A connection to one of them leaves from that same address; nothing was written yet, and nothing will be.
        if (this.options.connect === undefined && socket.localAddress === socket.remoteAddress) {
          socket.destroy();
          this.record(target);
          const refused = new Error(`${verdict.address} is this machine's`);
          return void reject(Object.assign(refused, { code: THIS_MACHINE, verdict }));
        }
        resolve(socket);
      });
    });
  }
}

/** The code of a dial refused because the host resolved to an address of this machine. */
const THIS_MACHINE = 'ETHISMACHINE';
type DialError = Error & { code?: string; verdict?: { address: string } };

/** The answer to a failed dial: a 403 for an address of this machine, else a 502. */
function dialFailure<T>(
  target: Target,
  error: DialError,
  answer: (status: number, reason: string, body: string) => T,
): T {
  if (error.code !== THIS_MACHINE) return answer(502, 'Bad Gateway', unreachable(target, error));
  const resolved = error.verdict?.address === target.host ? '' : ` (it resolves to ${error.verdict?.address})`;
  return answer(
    403,
    'Forbidden',
    `unified-exec sandbox: network access to ${target.host} is blocked${resolved}: addresses of this machine are never reached through the domain allowlist, whatever name is allowed. Ask for escalation to reach a local server.\n`,
  );
}

const resolveAll = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map(({ address }) => address);

const interfaceAddresses = (): string[] =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map(({ address }) => address));

const connectTo = (address: string, port: number): Socket => tcpConnect({ host: address, port });

interface Target {
  /** Without brackets (`::1`), as matched and dialled. */
  host: string;
  port: number;
}

function parseAuthority(authority: string): Target | undefined {
  const match = AUTHORITY.exec(authority);
  if (!match) return undefined;
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  const valid = match[1] !== undefined ? isIP(host) === 6 : HOST_NAME.test(host.replace(/\.$/, ''));
  return valid && port >= 1 && port <= 65535 ? { host, port } : undefined;
}

function parseAbsoluteUrl(uri: string): (Target & { path: string; authority: string }) | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !/^http:\/\//i.test(uri)) return undefined;
  const target = parseAuthority(`${url.hostname}:${url.port || '80'}`);
  return target && { ...target, path: `${url.pathname}${url.search}`, authority: url.host };
}

/** `headers` without hop-by-hop ones (and those `Connection` names) and without `Proxy-*`. */
function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => !HOP_BY_HOP.has(name) && !named.includes(name) && !name.startsWith('proxy-'),
    ),
  );
}

function sendText(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(status === 403 ? { [DENIED_HEADER]: 'domain' } : {}),
  });
  res.end(body);
}

/** The same answers on a socket that is no longer HTTP's (after CONNECT). */
function rawResponse(status: number, reason: string, body: string): string {
  const denied = status === 403 ? `${DENIED_HEADER}: domain\r\n` : '';
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n${denied}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function unreachable(target: Target, error: Error & { code?: string }): string {
  return `unified-exec sandbox proxy: could not connect to ${target.host}:${target.port} (${error.code ?? error.message})\n`;
}
