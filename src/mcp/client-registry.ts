import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UnifiedExecManager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/types.js';
import { DEFAULT_CLIENT_IDLE_TIMEOUT_MS } from './defaults.js';
import { createMcpServer, type McpServerOptions } from './server.js';

interface Entry {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  manager: UnifiedExecManager;
  /** Date.now() of the client's latest request. */
  lastSeen: number;
  ended?: Promise<void>;
}

/**
 * The MCP clients of an HTTP server, each known by its `mcp-session-id`, each with its own UnifiedExecManager, so
 * clients never see or touch each other's exec sessions; a client that ends (DELETE, transport close, idle timeout,
 * server shutdown) shuts its manager down with it.
 */
export class ClientRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<Entry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly managerOptions: ManagerOptions,
    private readonly serverOptions: McpServerOptions,
    private readonly log: (line: string) => void,
    private readonly idleTimeoutMs = DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  ) {
    this.sweeper = setInterval(() => this.endIdle(), Math.min(60_000, Math.max(10, idleTimeoutMs / 4)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The transport of a client, by its mcp-session-id; counts as the client's activity. */
  get(clientId: string): StreamableHTTPServerTransport | undefined {
    const entry = this.entries.get(clientId);
    if (entry) entry.lastSeen = Date.now();
    return entry?.transport;
  }

  /** The manager behind a client, for embedding and tests. */
  managerOf(clientId: string): UnifiedExecManager | undefined {
    return this.entries.get(clientId)?.manager;
  }

  /** A transport for an initialize request; it joins the registry once the SDK has given it a session id. */
  async open(): Promise<{ transport: StreamableHTTPServerTransport; discardIfUninitialized: () => Promise<void> }> {
    const manager = new UnifiedExecManager(this.managerOptions);
    const server = createMcpServer(manager, this.serverOptions);
    const entry: Entry = {
      manager,
      server,
      lastSeen: Date.now(),
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.pending.delete(entry);
          this.entries.set(id, entry);
          this.log(`client ${id} connected (${this.entries.size} connected)`);
        },
        // Awaited before the DELETE is answered, so a client that closed its session knows its processes are gone.
        onsessionclosed: (id) => this.end(entry, id, 'closed by the client'),
      }),
    };
    this.pending.add(entry);
    entry.transport.onclose = () => void this.end(entry, entry.transport.sessionId, 'transport closed');
    await server.connect(entry.transport);
    return {
      transport: entry.transport,
      discardIfUninitialized: async () => {
        if (entry.transport.sessionId === undefined) await this.end(entry, undefined, 'initialization failed');
      },
    };
  }

  /** Ends every client: all processes of all clients are terminated. */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.entries.entries()].map(([id, entry]) => this.end(entry, id, 'server shutting down'));
    const pending = [...this.pending].map((entry) => this.end(entry, undefined, 'server shutting down'));
    await Promise.all([...all, ...pending]);
  }

  /** Ends clients idle for longer than the timeout (a poll never lasts longer than 5 minutes). */
  private endIdle(): void {
    const now = Date.now();
    for (const [id, entry] of this.entries) {
      if (now - entry.lastSeen > this.idleTimeoutMs)
        void this.end(entry, id, `idle for over ${Math.round(this.idleTimeoutMs / 1000)} s`);
    }
  }

  private end(entry: Entry, clientId: string | undefined, why: string): Promise<void> {
    entry.ended ??= (async () => {
      if (clientId !== undefined) this.entries.delete(clientId);
      this.pending.delete(entry);
      const live = entry.manager.size;
      await entry.manager.shutdown();
      // Closing the server closes the transport, whose onclose lands back here and finds `ended` set.
      await entry.server.close().catch(() => undefined);
      if (clientId !== undefined) this.log(`client ${clientId} ended: ${why}; ${live} exec session(s) closed`);
    })();
    return entry.ended;
  }
}
