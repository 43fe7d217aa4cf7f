import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { ALL_TOOL_NAMES } from '../../src/tools/definitions.js';
import { useManagers } from '../helpers/manager.js';
import { killLeftoverServes, mcpTransport, startServe, unsandboxed } from './cli-process.js';
import { structuredOf } from './client-scenarios.js';
import { TOKEN_ENV, connectHttp } from './http-client.js';

// A client that sends a progressToken (the SDK does when a call has `onprogress`) gets the output of exec_command,
// write_stdin and shell as notifications/progress while the call waits; one that sends none gets none.

const THREE_LINES = { cmd: 'for i in 1 2 3; do echo line$i; sleep 0.2; done', shell: '/bin/bash', login: false };

/** Every message the client receives, in order, seen before the SDK handles it. */
function recordMessages(transport: Transport): JSONRPCMessage[] {
  const received: JSONRPCMessage[] = [];
  const handle = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    received.push(message);
    handle(message, extra);
  };
  return received;
}

const isProgress = (message: JSONRPCMessage) => 'method' in message && message.method === 'notifications/progress';

/** Deltas come numbered 1, 2, 3 … with the output as their message. */
function expectNumberedOutput(progress: Progress[], output: string): void {
  expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  expect(progress.map((p) => p.message).join('')).toBe(output);
}

describe('progress notifications over stdio, from the CLI', () => {
  let client: Client;
  let received: JSONRPCMessage[];
  const errors: Error[] = [];

  beforeAll(async () => {
    const transport = mcpTransport(unsandboxed(['--structured-output']));
    client = new Client({ name: 'progress-test', version: '1.0.0' });
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    received = recordMessages(transport);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('sends exec_command output as progress while the call waits, all before the reply', async () => {
    received.length = 0;
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'exec_command', arguments: THREE_LINES }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    const { output, exit_code: exitCode } = structuredOf<{ output: string; exit_code: number }>(result);
    expect(exitCode).toBe(0);
    expect(output).toBe('line1\nline2\nline3\n');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expectNumberedOutput(progress, output);
    // The reply is the last message of the call: no notification after it (the SDK would report an unknown token).
    expect(received.findIndex((m) => !isProgress(m))).toBe(received.length - 1);
    expect(received.filter(isProgress)).toHaveLength(progress.length);
    expect(errors).toEqual([]);
  });

  it('sends no notification to a call without a progressToken', async () => {
    received.length = 0;
    const result = await client.callTool({ name: 'exec_command', arguments: THREE_LINES });
    expect(structuredOf<{ output: string }>(result).output).toBe('line1\nline2\nline3\n');
    expect(received).toHaveLength(1);
    expect(received.some(isProgress)).toBe(false);
  });
});

describe('progress notifications over HTTP, from the CLI', () => {
  afterAll(killLeftoverServes);

  it('sends exec_command output as progress on the stream of the call', async () => {
    const serve = await startServe(['--structured-output', '--structured-output'], TOKEN_ENV);
    const { client } = await connectHttp(serve.url);
    try {
      const progress: Progress[] = [];
      const result = await client.callTool({ name: 'exec_command', arguments: THREE_LINES }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      const { output } = structuredOf<{ output: string }>(result);
      expect(output).toBe('line1\nline2\nline3\n');
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expectNumberedOutput(progress, output);
    } finally {
      await client.close();
      await serve.stop();
    }
  });
});

describe('progress notifications for write_stdin and shell', () => {
  const newManager = useManagers();
  const open: Client[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.close()));
  });

  async function connect(): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(newManager(), { tools: ALL_TOOL_NAMES, structuredOutput: true }).connect(serverSide);
    const client = new Client({ name: 'progress-test', version: '1.0.0' });
    await client.connect(clientSide);
    open.push(client);
    return client;
  }

  it('sends the echo and the answer of a write_stdin as progress', async () => {
    const client = await connect();
    const started = structuredOf<{ session_id: number }>(
      await client.callTool({
        name: 'exec_command',
        arguments: { cmd: 'cat', tty: true, shell: '/bin/bash', login: false, yield_time_ms: 250 },
      }),
    );
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'write_stdin', arguments: { session_id: started.session_id, chars: 'hello\n', yield_time_ms: 1000 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    const { output } = structuredOf<{ output: string }>(result);
    expect(output).toBe('hello\r\nhello\r\n');
    expectNumberedOutput(progress, output);
  });

  it('sends the stdout and stderr of a shell call as progress, in the order they came', async () => {
    const client = await connect();
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'shell', arguments: { command: ['bash', '-c', 'echo out; sleep 0.2; echo err >&2'] } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(structuredOf<{ output: string }>(result).output).toBe('out\nerr\n');
    expect(progress).toEqual([
      { progress: 1, message: 'out\n' },
      { progress: 2, message: 'err\n' },
    ]);
  });
});
