import type { Readable, Writable } from 'node:stream';
import { UnifiedExecManager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/types.js';
import { CallTrackingTransport } from './call-tracking-transport.js';
import { SHUTDOWN_ANSWER_GRACE_MS } from './defaults.js';
import { elicitApproval } from './elicit-approval.js';
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

/** MCP over stdin/stdout: stdout carries protocol messages only, so nothing else may print there. */
export async function startStdioServer(options: StdioServerOptions = {}): Promise<RunningStdioServer> {
  const input = options.input ?? process.stdin;
  // A wrong tool name fails before there is a manager to shut down.
  if (options.tools) offeredTools(options.tools);
  const manager = new UnifiedExecManager({
    ...options.managerOptions,
    onApproval: options.managerOptions?.onApproval ?? elicitApproval(() => server.server),
  });
  const server = createMcpServer(manager, options);
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
      await manager.shutdown();
      await transport.answerOpenCalls(SHUTDOWN_ANSWER_GRACE_MS);
      await server.close().catch(() => undefined);
      markClosed();
    })());
  // The SDK's transport does not notice end of input; a client that hung up must still take its processes along.
  input.once('end', () => void close());
  input.once('close', () => void close());
  transport.onclose = () => void close();
  await server.connect(transport);
  // In the background, after the server is connected: the first login command then finds the snapshot ready, and
  // neither the initialize answer nor a call that comes first waits for it.
  void manager.warmUp();
  return { manager, closed, close: () => close() };
}
