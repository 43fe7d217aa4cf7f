// A call the client gives up on ends at once, frees its session and loses nothing: over stdio and HTTP, through the
// real SDK client and the built CLI.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpTransport, startServe, unsandboxed, type ServeProcess } from './cli-process.js';
import { TOKEN_ENV, connectHttp, rawToolCall, type HttpConnection } from './http-client.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';

/** Prints `tick 1`, `tick 2`, … every 200 ms on a terminal, forever. */
const TICKER = 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done';

/** The text the model reads. */
function textOf(result: unknown): string {
  const content = (result as { content: Array<{ type: string; text: string }> }).content;
  return content.map((c) => c.text).join('');
}
const outputOf = (result: unknown) => textOf(result).split('\nOutput:\n')[1] ?? '';
const sessionOf = (result: unknown) => Number(/session ID (\d+)/.exec(textOf(result))?.[1]);
const ticks = (text: string) => [...text.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));

async function startTicker(client: Client): Promise<{ sessionId: number; seen: number[] }> {
  const started = await client.callTool({
    name: 'exec_command',
    arguments: { cmd: TICKER, tty: true, login: false, yield_time_ms: 500 },
  });
  return { sessionId: sessionOf(started), seen: ticks(outputOf(started)) };
}

/** A poll that waits long; the caller gives it up. */
function longPoll(client: Client, sessionId: number, options: { timeout?: number; signal?: AbortSignal }) {
  return client.callTool(
    { name: 'write_stdin', arguments: { session_id: sessionId, chars: '', yield_time_ms: 30_000 } },
    undefined,
    options,
  );
}

/** The next call on the session answers within its own short yield with every line the given-up call missed. */
async function expectNothingLost(client: Client, sessionId: number, seen: number[]): Promise<void> {
  const before = performance.now();
  const next = await client.callTool({
    name: 'write_stdin',
    arguments: { session_id: sessionId, chars: 'x', yield_time_ms: 300 },
  });
  expect(performance.now() - before).toBeLessThan(1_000);
  const all = [...seen, ...ticks(outputOf(next))];
  expect(all).toEqual(all.map((_, i) => i + 1));
  expect(all.length).toBeGreaterThanOrEqual(6);
}

function cancelScenarios(client: () => Client) {
  it('a poll cancelled by the client’s request timeout leaves its output for the next call', async () => {
    const { sessionId, seen } = await startTicker(client());
    await expect(longPoll(client(), sessionId, { timeout: 1_000 })).rejects.toThrow(/timed out/i);
    await expectNothingLost(client(), sessionId, seen);
  });

  it('a poll cancelled by the client’s signal leaves its output for the next call', async () => {
    const { sessionId, seen } = await startTicker(client());
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 1_000);
    await expect(longPoll(client(), sessionId, { signal: abort.signal })).rejects.toThrow();
    await expectNothingLost(client(), sessionId, seen);
  });

  it('interrupts a session without a tty on "\\u0003", and refuses other input as Codex does', async () => {
    const started = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'sleep 30', login: false, yield_time_ms: 300 },
    });
    const sessionId = sessionOf(started);
    const refused = await client().callTool({ name: 'write_stdin', arguments: { session_id: sessionId, chars: 'x' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(
      'write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open',
    );
    const interrupted = await client().callTool({
      name: 'write_stdin',
      arguments: { session_id: sessionId, chars: '\u0003', yield_time_ms: 5_000 },
    });
    expect(textOf(interrupted)).toMatch(/\nProcess exited with code 130\n[\s\S]*Output:\n$/);
  });
}

describe('mcp (stdio): a cancelled call', () => {
  let client: SdkClient;
  beforeAll(async () => {
    client = new SdkClient({ name: 'cancel-test', version: '1.0.0' });
    await client.connect(mcpTransport(unsandboxed([])));
  });
  afterAll(async () => {
    await client?.close();
  });
  cancelScenarios(() => client);
});

describe('serve (HTTP): a cancelled call', () => {
  let server: ServeProcess;
  let connection: HttpConnection;
  beforeAll(async () => {
    server = await startServe(unsandboxed([]), TOKEN_ENV);
    connection = await connectHttp(server.url);
  });
  afterAll(async () => {
    await connection?.client.close();
    await server?.stop();
  });
  cancelScenarios(() => connection.client);

  it('a poll whose connection drops mid-call leaves its output for the next call', async () => {
    const { sessionId, seen } = await startTicker(connection.client);
    const abort = new AbortController();
    const call = await rawToolCall(
      server.url,
      connection,
      91,
      'write_stdin',
      { session_id: sessionId, chars: '', yield_time_ms: 30_000 },
      abort.signal,
    );
    expect(call.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    abort.abort();
    await expectNothingLost(connection.client, sessionId, seen);
  });
});
