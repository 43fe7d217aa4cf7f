import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import type { RequestId } from '@modelcontextprotocol/server';
import { SessionBudget } from '../manager/budget.js';
import { UnifiedExecManager } from '../manager/manager.js';
import { resolveSettings } from '../manager/settings.js';
import type { ManagerOptions } from '../manager/types.js';
import { pickClientToEvict, type ClientActivity } from './client-eviction.js';
import { expiryOf } from './client-expiry.js';
import {
  DEFAULT_CLIENT_DISCONNECT_GRACE_MS,
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_CLIENTS,
  SHUTDOWN_ANSWER_GRACE_MS,
} from './defaults.js';
import { OpenCalls, requestIdsOf, shutdownError } from './open-calls.js';
import { elicitApproval } from './elicit-approval.js';
import { offeredTools } from '../tools/definitions.js';
import { createMcpServer, type McpServerOptions } from './server.js';
import { sendWebResponse, webRequestOf } from './web-exchange.js';

export interface ClientRegistryOptions {
  managerOptions?: ManagerOptions;
  serverOptions?: McpServerOptions;
  log?: (line: string) => void;
  /** A client with no call in flight and no request for this long is ended. Default 30 minutes. */
  idleTimeoutMs?: number;
  /**
   * A client that held its event stream (GET) open and now has no stream and no call open is ended after this long
   * without a request. Default 30 s.
   */
  disconnectGraceMs?: number;
  /** Clients held at once, initialize-only ones included. Default 64. */
  maxClients?: number;
}

/** A client as a watcher of the server sees it (the live view): who it is and the manager of its exec sessions. */
export interface ClientListing {
  clientId: string;
  /** The name it gave in its initialize request's clientInfo (e.g. "claude-code"); undefined if it gave none. */
  clientName: string | undefined;
  manager: UnifiedExecManager;
}

/** What an initialize request came to: a new client, or none (every client busy at the cap, or shutting down). */
export type OpenOutcome = 'opened' | 'full' | 'closing';

interface Entry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  manager: UnifiedExecManager;
  /** Date.now() of the client's latest request, of the latest answer it was sent, or of its stream's closing. */
  lastSeen: number;
  /** Its event streams (GET) open now; the transport holds one at a time, a refused second one is counted briefly. */
  openStreams: number;
  /** An event stream of it was open once: from then on, having no connection at all means it has gone. */
  hadStream: boolean;
  /** Its POSTs whose response is not finished: a client with one is busy, however long the call takes. */
  calls: OpenCalls<ServerResponse>;
  ended?: Promise<void>;
}

/**
 * The MCP clients of an HTTP server, each known by its `mcp-session-id`, each with its own UnifiedExecManager, so
 * clients never see or touch each other's exec sessions; a client that ends (DELETE, transport close, idle timeout,
 * gone after its stream closed, eviction at the cap, server shutdown) shuts its manager down with it, after its open calls got their answers.
 */
export class ClientRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Set<Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly log: (line: string) => void;
  private readonly idleTimeoutMs: number;
  private readonly disconnectGraceMs: number;
  private readonly maxClients: number;
  private readonly budget: SessionBudget;
  private closed = false;
  /** The one client warm-up under way: a flood of initializes starts one login capture at a time, not one each. */
  private warming: Promise<void> | undefined;

  constructor(private readonly options: ClientRegistryOptions = {}) {
    this.log = options.log ?? (() => undefined);
    // Servers are made per client, later: a wrong tool name should fail here, not at the first client.
    if (options.serverOptions?.tools) offeredTools(options.serverOptions.tools);
    this.budget = options.managerOptions?.budget ?? sharedBudget(options.managerOptions ?? {});
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_CLIENT_IDLE_TIMEOUT_MS;
    this.disconnectGraceMs = options.disconnectGraceMs ?? DEFAULT_CLIENT_DISCONNECT_GRACE_MS;
    this.maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
    const sweepMs = Math.min(60_000, Math.max(10, Math.min(this.idleTimeoutMs, this.disconnectGraceMs) / 4));
    this.sweeper = setInterval(() => this.endExpired(), sweepMs);
    this.sweeper.unref();
  }

  /** Clients held, those still initializing included. */
  get size(): number {
    return this.entries.size + this.pending.size;
  }

  /** The manager behind a client, for embedding and tests. */
  managerOf(clientId: string): UnifiedExecManager | undefined {
    return this.entries.get(clientId)?.manager;
  }

  /** Every client that has initialized and not ended, in the order they connected. */
  listClients(): ClientListing[] {
    return [...this.entries].map(([clientId, entry]) => ({
      clientId,
      clientName: entry.server.server.getClientVersion()?.name,
      manager: entry.manager,
    }));
  }

  /** Hands a request of a known client to its transport; false when no such client is held. */
  async handle(clientId: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean> {
    const entry = this.entries.get(clientId);
    if (!entry) return false;
    await this.route(entry, req, res, body);
    return true;
  }

  /**
   * An initialize request: a new client. At the cap the least recently active idle client is ended to make room;
   * when every client has a call in flight, none is opened ('full').
   */
  async open(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<OpenOutcome> {
    if (this.closed) return 'closing';
    let evicted: Promise<void> | undefined;
    if (this.size >= this.maxClients) {
      const victim = pickClientToEvict(this.activity());
      const entry = victim === undefined ? undefined : this.entries.get(victim);
      if (!entry) return 'full';
      evicted = this.end(
        entry,
        victim,
        `least recently active of ${this.maxClients} clients, making room for a new one`,
      );
    }
    const entry = this.create();
    this.pending.add(entry);
    await evicted;
    await entry.server.connect(entry.transport);
    // closeAll() ran meanwhile and ended this one too.
    if (entry.ended) return 'closing';
    await this.route(entry, req, res, body);
    if (entry.transport.sessionId === undefined) await this.end(entry, undefined, 'initialization failed');
    // In the background, once initialize is answered: the client's first login command finds its snapshot ready.
    // A client that comes while another's is taken is not warmed up: its first login command starts the capture.
    else this.warming ??= entry.manager.warmUp().finally(() => (this.warming = undefined));
    return 'opened';
  }

  /** Ends every client: their open calls are answered, all processes of all clients are terminated. */
  async closeAll(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.entries.entries()].map(([id, entry]) => this.end(entry, id, 'server shutting down'));
    const pending = [...this.pending].map((entry) => this.end(entry, undefined, 'server shutting down'));
    await Promise.all([...all, ...pending]);
  }

  private create(): Entry {
    // One budget for every client: the session and unread-output limits hold across the server, not per client.
    // Approvals go to the person behind this client; "for this session" approvals stay with this client's manager.
    const manager = new UnifiedExecManager({
      ...this.options.managerOptions,
      budget: this.budget,
      onApproval: this.options.managerOptions?.onApproval ?? elicitApproval(() => server.server),
    });
    const server = createMcpServer(manager, this.options.serverOptions);
    const entry: Entry = {
      manager,
      server,
      lastSeen: Date.now(),
      openStreams: 0,
      hadStream: false,
      calls: new OpenCalls(),
      transport: new WebStandardStreamableHTTPServerTransport({
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
    entry.transport.onclose = () => void this.end(entry, entry.transport.sessionId, 'transport closed');
    return entry;
  }

  /** Every request counts as activity; a POST (calls) keeps its client busy until its response is finished. */
  private async route(entry: Entry, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    entry.lastSeen = Date.now();
    // A GET holds the client's event stream open for as long as it likes: that is no call, and keeps no one busy,
    // but its closing may be the client's process going away.
    if (req.method === 'GET') {
      entry.openStreams += 1;
      res.once('close', () => {
        entry.openStreams -= 1;
        entry.lastSeen = Date.now();
        // Only a stream the transport took counts (not a refused second GET or a bad Accept).
        if (res.statusCode === 200) entry.hadStream = true;
      });
    }
    if (req.method === 'POST') {
      const ids = requestIdsOf(body);
      entry.calls.add(res, ids);
      res.once('close', () => {
        entry.calls.delete(res);
        entry.lastSeen = Date.now();
        // The connection dropped before the answer went out: nobody can read it, so the calls are cancelled as if
        // the client had said so (their sessions are freed, their output kept for the next call).
        if (!res.writableFinished) for (const id of ids) cancelCall(entry, id);
      });
    }
    await sendWebResponse(res, await entry.transport.handleRequest(webRequestOf(req), { parsedBody: body }));
  }

  private activity(): Array<ClientActivity<string>> {
    return [...this.entries].map(([key, entry]) => ({
      key,
      lastSeen: entry.lastSeen,
      openCalls: entry.calls.size,
      liveSessions: entry.manager.size,
    }));
  }

  /** Ends clients that have gone (every connection closed after holding a stream) or stayed idle too long. */
  private endExpired(): void {
    const now = Date.now();
    const limits = { idleTimeoutMs: this.idleTimeoutMs, disconnectGraceMs: this.disconnectGraceMs };
    for (const [id, entry] of this.entries) {
      const expiry = expiryOf(
        {
          lastSeen: entry.lastSeen,
          openCalls: entry.calls.size,
          openStreams: entry.openStreams,
          hadStream: entry.hadStream,
        },
        now,
        limits,
      );
      if (expiry === 'gone')
        void this.end(entry, id, `gone: every connection closed, no request for ${seconds(this.disconnectGraceMs)} s`);
      else if (expiry === 'idle') void this.end(entry, id, `idle for over ${seconds(this.idleTimeoutMs)} s`);
    }
  }

  private end(entry: Entry, clientId: string | undefined, why: string): Promise<void> {
    entry.ended ??= (async () => {
      if (clientId !== undefined) this.entries.delete(clientId);
      this.pending.delete(entry);
      const live = entry.manager.size;
      // Calls waiting on a session answer at once with its exit; the rest fail with SHUT_DOWN.
      await entry.manager.shutdown();
      await answerOpenCalls(entry);
      // Closing the server closes the transport, whose onclose lands back here and finds `ended` set.
      await entry.server.close().catch(() => undefined);
      if (clientId !== undefined) this.log(`client ${clientId} ended: ${why}; ${live} exec session(s) closed`);
    })();
    return entry.ended;
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Hands the client's server a `notifications/cancelled` for a call, as if the client had sent it. */
function cancelCall(entry: Entry, requestId: RequestId): void {
  entry.transport.onmessage?.({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId, reason: 'the connection of the call closed before its answer' },
  });
}

/** Lets open calls write their final answer; those that cannot in time are answered with a JSON-RPC error. */
async function answerOpenCalls(entry: Entry): Promise<void> {
  if (await entry.calls.drained(SHUTDOWN_ANSWER_GRACE_MS)) return;
  for (const id of entry.calls.ids()) await entry.transport.send(shutdownError(id)).catch(() => undefined);
  await entry.calls.drained(SHUTDOWN_ANSWER_GRACE_MS);
}

/** The server-wide budget from the manager settings: `maxSessions` and `maxTotalBufferedBytes` across all clients. */
function sharedBudget(managerOptions: ManagerOptions): SessionBudget {
  const { executor: _e, idGenerator: _i, clock: _c, returnPolicy: _r, budget: _b, ...settings } = managerOptions;
  const { maxSessions, maxTotalBufferedBytes } = resolveSettings(settings);
  return new SessionBudget({ maxSessions, maxBufferedBytes: maxTotalBufferedBytes });
}
