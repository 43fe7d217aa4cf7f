import type { Readable, Writable } from 'node:stream';
import type { UnifiedExecManager } from '../manager/manager.js';
import { resolveSettings } from '../manager/settings.js';
import type { ManagerOptions } from '../manager/types.js';
import type { ExecSessions } from '../tools/run-tool.js';
import { CallTrackingTransport } from './call-tracking-transport.js';
import { SHUTDOWN_ANSWER_GRACE_MS } from './defaults.js';
import { StdioLineTransport } from './stdio-transport.js';
import { offeredTools } from '../tools/definitions.js';
import { createMcpServer, type McpServerOptions } from './server.js';

export interface StdioServerOptions extends McpServerOptions {
  managerOptions?: ManagerOptions;
  /** Default process.stdin / process.stdout. */
  input?: Readable;
  output?: Writable;
}

export interface RunningStdioServer {
  manager: UnifiedExecManager;
  /** Resolves once the client went away (stdin ended) or close() was called, with every process terminated. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * MCP over stdin/stdout: stdout carries protocol messages only, so nothing else may print there. The server answers
 * `initialize` and `tools/list` before the manager's code is even loaded: a client starts its servers when it starts
 * and lists their tools once, so a server still loading then offers nothing for the whole conversation. The manager
 * loads right after (a tool call that comes first waits for it); this resolves once it is there.
 */
export async function startStdioServer(options: StdioServerOptions = {}): Promise<RunningStdioServer> {
  const input = options.input ?? process.stdin;
  // A wrong tool name or setting fails before there is a server.
  if (options.tools) offeredTools(options.tools);
  const { maxBackgroundPollMs } = resolveSettings(options.managerOptions ?? {});
  let loaded: UnifiedExecManager | undefined;
  let loading: Promise<UnifiedExecManager> | undefined;
  const manager = () => (loading ??= makeManager(options.managerOptions, () => server).then((m) => (loaded = m)));
  const sessions: Required<ExecSessions> = {
    settings: { maxBackgroundPollMs },
    // A call that came while the manager loads has its yield counted from its arrival (see CallOptions.waitedMs).
    execCommand: async (request, callOptions) => {
      if (loaded) return loaded.execCommand(request, callOptions);
      const arrived = performance.now();
      const made = await manager();
      return made.execCommand(request, { ...callOptions, waitedMs: performance.now() - arrived });
    },
    writeStdin: async (request, callOptions) => (await manager()).writeStdin(request, callOptions),
    shell: async (request, callOptions) => (await manager()).shell(request, callOptions),
    closeSession: async (sessionId) => (await manager()).closeSession(sessionId),
    // Before the manager is there, no session can be.
    listSessions: () => loaded?.listSessions() ?? [],
  };
  const server = createMcpServer(sessions, options);
  const output = options.output ?? process.stdout;
  // Garbage and over-long lines are answered by the transport's line guard; the SDK's transport would ignore the one
  // and hang up on the other.
  const transport = new CallTrackingTransport(new StdioLineTransport(input, output));
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Calls waiting on a session answer at once with its exit; every open call is answered before the server closes.
      await (await manager()).shutdown();
      await transport.answerOpenCalls(SHUTDOWN_ANSWER_GRACE_MS);
      await server.close().catch(() => undefined);
      markClosed();
    })());
  // The SDK's transport does not notice end of input; a client that hung up must still take its processes along.
  input.once('end', () => void close());
  input.once('close', () => void close());
  // Nor one whose output went away (a closed pipe): nothing it answers reaches anyone.
  output.on('error', () => void close());
  transport.onclose = () => void close();
  // Once the client says it is initialized, in the background: the first login command then finds the snapshot
  // ready, and neither the initialize answer nor a call that comes first waits for it.
  server.server.oninitialized = () =>
    void manager()
      .then((made) => made.warmUp())
      .catch(() => undefined); // a profile that fails is said by the first login command that meets it
  await server.connect(transport);
  return { manager: await manager(), closed, close: () => close() };
}

/** The manager, its code loaded now; approvals are asked of the client through `server`. */
async function makeManager(
  managerOptions: ManagerOptions | undefined,
  server: () => ReturnType<typeof createMcpServer>,
): Promise<UnifiedExecManager> {
  // The approval form loads with the manager, after it: neither is needed to answer initialize or tools/list. One
  // after the other, so the modules they share load in one order every time (test/cli/startup.test.ts checks it):
  // loaded side by side, the form's share of them sometimes came first.
  const { UnifiedExecManager } = await import('../manager/manager.js');
  const { elicitApproval } = await import('./elicit-approval.js');
  return new UnifiedExecManager({
    ...managerOptions,
    onApproval: managerOptions?.onApproval ?? elicitApproval(() => server().server),
  });
}
