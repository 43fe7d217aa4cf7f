import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP relay in front of a server, to break the connection between a client and that server on purpose:
 * `cut()` drops every connection through it (the server sees its client go), `down()` also refuses new ones until
 * `up()`, on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** `port` 0 picks a free one. */
  static async start(target: string, port = 0): Promise<TcpProxy> {
    const url = new URL(target);
    const proxy = new TcpProxy(url.hostname, Number(url.port));
    proxy.port = port;
    await proxy.up();
    return proxy;
  }

  /** The same URL as the target's, through this relay. */
  url(scheme = 'ws'): string {
    return `${scheme}://127.0.0.1:${this.port}`;
  }

  /** Accepts connections (again), on the port it had before. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      const pair = { client, upstream, frozen: false };
      this.pairs.add(pair);
      client.on('close', () => {
        this.pairs.delete(pair);
        // A frozen link tells the server nothing: its side stays open, as behind a cut cable.
        if (!pair.frozen) upstream.destroy();
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /**
   * Stops every connection now open from carrying anything, either way, without closing it: to both ends it looks
   * like a link that went dead. New connections work.
   */
  freeze(): void {
    for (const pair of this.pairs) {
      pair.frozen = true;
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.client.pause();
      pair.upstream.pause();
    }
  }

  /** Drops every connection now open; new ones are still taken. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Drops every connection and refuses new ones until `up()`. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.cut();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
