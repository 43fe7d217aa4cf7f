import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RawStdioServer } from '../reliability/raw-stdio.js';
import { isAlive, mcpTransport, unsandboxed } from './cli-process.js';
import { readExecText } from '../helpers/exec-text.js';
import { defineClientScenarios, execTextOf, pidOfSession, structuredOf, textOf } from './client-scenarios.js';

async function connect(args: string[] = []): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = mcpTransport(unsandboxed(args));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('unified-exec mcp (stdio) with the SDK client', () => {
  let connection: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    connection = await connect();
  });
  afterAll(async () => {
    await connection?.client.close();
  });

  defineClientScenarios(() => connection.client);

  it('answers calls sent at once, each with its own result, whichever finishes first', async () => {
    const exec = (cmd: string) =>
      connection.client.callTool({ name: 'exec_command', arguments: { cmd, login: false } });
    const [slow, list, fast] = await Promise.all([
      exec('sleep 0.3; echo slow'),
      connection.client.callTool({ name: 'list_sessions', arguments: {} }),
      exec('echo fast'),
    ]);
    expect(execTextOf(slow)).toMatchObject({ output: 'slow\n', exitCode: 0 });
    expect(textOf(list)).toMatch(/^(No sessions are open\.|Open sessions: \d+)/);
    expect(execTextOf(fast)).toMatchObject({ output: 'fast\n', exitCode: 0 });
  });

  it('reports its name and version', () => {
    expect(connection.client.getServerVersion()).toMatchObject({
      name: 'unified-exec',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});

describe('unified-exec mcp --state-lines', () => {
  it("adds the state lines to Codex's text, which reads without them by default", async () => {
    const texts: string[] = [];
    for (const args of [[], ['--state-lines']]) {
      const { client } = await connect(args);
      try {
        const r = await client.callTool({
          name: 'exec_command',
          arguments: { cmd: 'read -s -p "password: " x', tty: true, login: false, yield_time_ms: 5000 },
        });
        texts.push(textOf(r));
      } finally {
        await client.close();
      }
    }
    const [plain, withLines] = texts as [string, string];
    expect(plain).toMatch(/\nProcess running with session ID \d+\nOriginal token count: /);
    expect(withLines).toMatch(
      /\nProcess running with session ID \d+\nProcess is waiting for input\nTerminal echo is off \(password prompt\)\nOriginal token count: /,
    );
  });
});

describe('unified-exec mcp (stdio) reading its input', () => {
  let raw: RawStdioServer;
  beforeAll(async () => {
    raw = new RawStdioServer();
    await raw.initialize();
  });
  afterAll(async () => {
    await raw?.close();
  });

  it('answers every message of one write, and garbage among them with an error', async () => {
    const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'exec_command', arguments: { cmd: 'echo one-write', login: false } },
    });
    raw.send(`${ping(1)}\n{"jsonrpc":"2.0","id":2,"method"\n\n${call}\n${ping(4)}\n`);
    const replies = [await raw.next(), await raw.next(), await raw.next(), await raw.next()];
    // Answers go out as each is ready (the error at once, the command when it exits), not in the order asked.
    const byWhat = new Map(replies.map((reply) => [reply.error?.code ?? reply.id, reply]));
    expect([...byWhat.keys()].sort()).toEqual([-32700, 1, 3, 4].sort());
    const answer = byWhat.get(3)?.result;
    expect(answer).not.toHaveProperty('structuredContent');
    expect(readExecText(answer?.content?.[0]?.text ?? '')).toMatchObject({ output: 'one-write\n', exitCode: 0 });
  });

  it('reads a message written in pieces, split inside a character, as one', async () => {
    const line = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: { _meta: { é: 1 } } })}\n`,
    );
    const cut = line.indexOf(Buffer.from('é')) + 1;
    raw.send(line.subarray(0, cut));
    await new Promise((resolve) => setTimeout(resolve, 50));
    raw.send(line.subarray(cut));
    expect(await raw.next()).toMatchObject({ id: 5, result: {} });
  });
});

describe('unified-exec mcp (stdio) lifetime', () => {
  it('ends its sessions when the client disconnects', async () => {
    const { client, transport } = await connect();
    const serverPid = transport.pid!;
    const started = await client.callTool({
      name: 'exec_command',
      arguments: { cmd: 'sleep 600', yield_time_ms: 250 },
    });
    const pid = await pidOfSession(client, execTextOf(started).sessionId!);
    expect(isAlive(pid)).toBe(true);

    await client.close();
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000 });
    await vi.waitFor(() => expect(isAlive(serverPid)).toBe(false), { timeout: 10_000 });
  });
});

describe('unified-exec mcp --defer-tools', () => {
  it('marks no tool to be loaded from the first turn: Claude Code may defer them all', async () => {
    const connection = await connect(['--defer-tools']);
    try {
      const { tools } = await connection.client.listTools();
      expect(tools).toHaveLength(4);
      for (const tool of tools) expect(tool, tool.name).not.toHaveProperty('_meta');
    } finally {
      await connection.client.close();
    }
  });
});

describe('unified-exec mcp --structured-output', () => {
  let connection: Awaited<ReturnType<typeof connect>>;
  beforeAll(async () => {
    connection = await connect(['--structured-output']);
  });
  afterAll(async () => {
    await connection?.client.close();
  });

  it('declares an output schema for every tool', async () => {
    const { tools } = await connection.client.listTools();
    expect(tools).toHaveLength(4);
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
  });

  it('answers with the structured fields beside the same text, checked by the SDK against the schema', async () => {
    // listTools (above, and again here) hands the SDK client the schemas: callTool then rejects a result that does
    // not match its tool's outputSchema, or that lacks structuredContent.
    await connection.client.listTools();
    const result = await connection.client.callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
    const structured = structuredOf<Record<string, unknown>>(result);
    expect(structured).toMatchObject({ output: 'hello\n', exit_code: 0, original_token_count: 2, state: 'exited' });
    expect(structured).not.toHaveProperty('session_id');
    expect(textOf(result)).toContain(`Chunk ID: ${String(structured.chunk_id)}\n`);

    const listed = await connection.client.callTool({ name: 'list_sessions', arguments: {} });
    expect(structuredOf(listed)).toEqual({ sessions: [] });
    expect(textOf(listed)).toBe('No sessions are open.');
  });

  it('still answers a failure as a tool error with text alone', async () => {
    const result = await connection.client.callTool({ name: 'write_stdin', arguments: { session_id: 424242 } });
    expect(result).toMatchObject({ isError: true });
    expect(result).not.toHaveProperty('structuredContent');
    expect(textOf(result)).toBe('write_stdin failed: Unknown process id 424242');
  });
});
