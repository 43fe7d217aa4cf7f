import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { ALL_TOOL_NAMES } from '../../src/tools/definitions.js';
import type { ExecSessions } from '../../src/tools/run-tool.js';
import { useManagers } from '../helpers/manager.js';
import { sessionsWithoutShell } from '../helpers/shell-sessions.js';
import { mcpTransport, unsandboxed } from './cli-process.js';

// The tools an MCP client lists quote the limits the server runs with, not the defaults: an operator who lowers
// maxBackgroundPollMs must not have write_stdin promise the model a longer poll than it gets.

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function listed(sessions: ExecSessions) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(sessions, { tools: ALL_TOOL_NAMES, structuredOutput: true }).connect(serverSide);
  const client = new Client({ name: 'tool-texts-test', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client);
  return (await client.listTools()).tools;
}

type Listed = Awaited<ReturnType<typeof listed>>;

const pollText = (tools: Listed) =>
  (tools.find((t) => t.name === 'write_stdin')?.inputSchema.properties?.yield_time_ms as { description?: string })
    ?.description;

describe('the tools an MCP client lists', () => {
  const newManager = useManagers();

  it("quote the server's maxBackgroundPollMs in write_stdin's yield_time_ms, and change nothing else", async () => {
    const lowered = await listed(newManager({ maxBackgroundPollMs: 60_000 }));
    const usual = await listed(newManager());
    expect(pollText(lowered)).toContain('an empty poll waits at least 5000 and at most 60000.');
    expect(pollText(lowered)).not.toContain('300000');
    expect(pollText(usual)).toContain('an empty poll waits at least 5000 and at most 300000.');
    const withoutPollText = (tools: Listed) =>
      JSON.stringify(tools).replace(JSON.stringify(pollText(tools)), '"the poll text"');
    expect(withoutPollText(lowered)).toBe(withoutPollText(usual));
  });

  it('quote the 5 s floor of a poll when maxBackgroundPollMs is below it, as the poll then waits', async () => {
    expect(pollText(await listed(newManager({ maxBackgroundPollMs: 1000 })))).toContain(
      'at least 5000 and at most 5000.',
    );
  });

  it('quote the defaults for sessions that do not say their settings', async () => {
    expect(pollText(await listed(sessionsWithoutShell()))).toContain('at most 300000.');
  });

  it('quote --max-background-poll-ms through `unified-exec mcp`', async () => {
    const client = new Client({ name: 'tool-texts-test', version: '1.0.0' });
    await client.connect(mcpTransport(unsandboxed(['--max-background-poll-ms', '60000'])));
    open.push(client);
    const text = pollText((await client.listTools()).tools);
    expect(text).toContain('at most 60000.');
    expect(text).not.toContain('300000');
  });
});
