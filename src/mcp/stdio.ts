import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { UnifiedExecManager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/types.js';
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
  const manager = new UnifiedExecManager(options.managerOptions);
  const server = createMcpServer(manager, options);
  const transport = new StdioServerTransport(input, options.output ?? process.stdout);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await manager.shutdown();
      await server.close().catch(() => undefined);
      markClosed();
    })());
  // The SDK's transport does not notice end of input; a client that hung up must still take its processes along.
  input.once('end', () => void close());
  input.once('close', () => void close());
  transport.onclose = () => void close();
  await server.connect(transport);
  return { manager, closed, close: () => close() };
}
