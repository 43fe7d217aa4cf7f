import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientRegistry } from '../../src/mcp/client-registry.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';
import { startStdioServer } from '../../src/mcp/stdio.js';
import { ALL_TOOL_NAMES, TOOL_NAMES, type ToolName } from '../../src/tools/definitions.js';
import type { ExecSessions } from '../../src/tools/run-tool.js';
import { useManagers } from '../helpers/manager.js';
import { sessionsWithoutShell, shellSessions } from '../helpers/shell-sessions.js';

// The `tools` option as an MCP client sees it: the real SDK client, connected in memory to createMcpServer.

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect(sessions: ExecSessions, options: McpServerOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(sessions, options).connect(serverSide);
  const client = new Client({ name: 'shell-tool-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client);
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as Array<{ type: string; text: string }>)[0]?.text;

describe('an MCP server and the shell tool', () => {
  const newManager = useManagers();

  it('lists the four session tools by default, and answers a shell call as an unknown tool', async () => {
    const client = await connect(newManager());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    expect(client.getInstructions()).not.toMatch(/\bshell runs\b/);
    const result = await client.callTool({ name: 'shell', arguments: { command: ['echo', 'hi'] } });
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe(
      'Tool shell not found; the tools are exec_command, write_stdin, list_sessions, close_session',
    );
  });

  it('lists five tools when told to offer shell too, with its input schema', async () => {
    const client = await connect(shellSessions(), { tools: [...TOOL_NAMES, 'shell'] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOL_NAMES);
    const shell = tools.find((t) => t.name === 'shell');
    expect(shell?.inputSchema).toMatchObject({ required: ['command'], properties: { command: { type: 'array' } } });
    expect(shell).not.toHaveProperty('outputSchema');
    expect(client.getInstructions()).toMatch(/\bshell runs one program\b/);
  });

  it("runs a real process for a shell call and answers in Codex's JSON text alone", async () => {
    const client = await connect(shellSessions(), { tools: ALL_TOOL_NAMES });
    const result = await client.callTool({ name: 'shell', arguments: { command: ['bash', '-c', 'echo hi; exit 3'] } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^\{"output":"hi\\n","metadata":\{"exit_code":3,"duration_seconds":\d+\.\d\}\}$/);
    expect(result).not.toHaveProperty('structuredContent');
  });

  it('with structuredOutput, declares the output schema and answers with structured content beside the text', async () => {
    const client = await connect(shellSessions(), { tools: ALL_TOOL_NAMES, structuredOutput: true });
    const shell = (await client.listTools()).tools.find((t) => t.name === 'shell');
    expect(shell?.outputSchema?.properties).toHaveProperty('timed_out');
    const result = await client.callTool({ name: 'shell', arguments: { command: ['bash', '-c', 'echo hi; exit 3'] } });
    expect(textOf(result)).toMatch(/^\{"output":"hi\\n","metadata":\{"exit_code":3,/);
    // The SDK client has checked structuredContent against the declared outputSchema.
    expect(result.structuredContent).toMatchObject({ exit_code: 3, output: 'hi\n', timed_out: false });
  });

  it('offers only the tools named: others are unknown, even when the sessions could run them', async () => {
    const client = await connect(shellSessions(), { tools: ['shell'] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['shell']);
    const result = await client.callTool({ name: 'list_sessions', arguments: {} });
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe('Tool list_sessions not found; the tools are shell');
  });

  it('says shell is not offered when the sessions behind the server cannot run it', async () => {
    const client = await connect(sessionsWithoutShell(), { tools: ALL_TOOL_NAMES });
    const result = await client.callTool({ name: 'shell', arguments: { command: ['ls'] } });
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result)).toBe('Tool shell is not offered by this server');
  });

  it('refuses a tool name that does not exist, before any client connects', async () => {
    const bogus = ['exec_command', 'rm_rf'] as unknown as ToolName[];
    expect(() => createMcpServer(sessionsWithoutShell(), { tools: bogus })).toThrow(
      'Unknown tool "rm_rf"; the tools are exec_command, write_stdin, list_sessions, close_session, shell',
    );
    expect(() => new ClientRegistry({ serverOptions: { tools: bogus } })).toThrow(/Unknown tool "rm_rf"/);
    await expect(startStdioServer({ tools: bogus })).rejects.toThrow(/Unknown tool "rm_rf"/);
  });
});
