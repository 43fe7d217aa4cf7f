// The MCP server with `--executor`: a model picks where a command runs with exec_command's `executor`, and
// list_sessions says where each session is. Real CLI over stdio, real MCP SDK client, our exec-server beside it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOurExecServer } from '../codex/our-exec-server.js';
import type { RunningServer } from '../codex/ws-server-process.js';
import { mcpTransport } from '../mcp/cli-process.js';
import { processesRunning } from '../reliability/harness.js';

interface ToolReply {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

describe('the MCP server runs sessions on the executors it is given', { timeout: 30_000 }, () => {
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await startOurExecServer();
    client = new Client({ name: 'executors-test', version: '1.0.0' });
    // Only exec-servers: no bubblewrap is needed here, the policy travels to the server.
    await client.connect(
      mcpTransport([
        '--structured-output',
        '--executor',
        `box=${server.executorUrl}`,
        '--executor',
        'here=local',
        '--sandbox',
        'danger-full-access',
        ...['exec_command', 'write_stdin', 'list_sessions', 'close_session', 'shell'].flatMap((t) => ['--tool', t]),
      ]),
    );
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolReply;

  it('runs on the default (the first) unless the call names another, and lists where each session runs', async () => {
    const onBox = await call('exec_command', { cmd: 'echo $$; sleep 30', login: false, yield_time_ms: 500 });
    const onHere = await call('exec_command', {
      cmd: 'echo $$; sleep 30',
      login: false,
      yield_time_ms: 500,
      executor: 'here',
    });
    expect(onBox.structuredContent?.session_id).toBeDefined();
    expect(onHere.structuredContent?.session_id).toBeDefined();
    const listed = await call('list_sessions', {});
    const sessions = listed.structuredContent?.sessions as {
      session_id: number;
      executor: string;
      location: string;
      pid?: number;
    }[];
    const box = sessions.find((s) => s.session_id === onBox.structuredContent?.session_id);
    const here = sessions.find((s) => s.session_id === onHere.structuredContent?.session_id);
    expect(box).toMatchObject({ executor: 'box', location: server.url });
    expect(box).not.toHaveProperty('pid');
    expect(here).toMatchObject({ executor: 'here', location: 'local' });
    expect(here?.pid).toBeGreaterThan(0);
    expect(listed.content[0]!.text).toContain(`on box (${server.url})`);
    for (const s of [onBox, onHere]) await call('close_session', { session_id: s.structuredContent?.session_id });
  });

  it('runs the one-shot shell tool on the same executors: the default unless the call names another', async () => {
    // A command's parent is what started it: the exec-server on `box`, the MCP server itself on `here`.
    const parent = async (args: Record<string, unknown>) => {
      const reply = await call('shell', { command: ['sh', '-c', 'echo $PPID; echo err >&2'], ...args });
      const { output, metadata } = JSON.parse(reply.content[0]!.text) as {
        output: string;
        metadata: { exit_code: number };
      };
      expect(metadata.exit_code).toBe(0);
      expect(output).toMatch(/^\d+\nerr\n$/);
      return Number(output.split('\n')[0]);
    };
    expect(await parent({})).toBe(server.pid);
    const here = await parent({ executor: 'here' });
    expect(here).not.toBe(server.pid);
    expect(here).toBeGreaterThan(0);
    const timedOut = await call('shell', { command: ['sh', '-c', 'echo started; sleep 30'], timeout_ms: 500 });
    expect(JSON.parse(timedOut.content[0]!.text)).toMatchObject({
      output: expect.stringMatching(/^command timed out after \d+ milliseconds\nstarted\n$/),
      metadata: { exit_code: 124 },
    });
    // A background job holding the pipes: the exit is the program's, at once, as on this machine (not a timeout).
    const begun = performance.now();
    const job = `sleep 60.${Math.floor(Math.random() * 1e6)}`;
    const backgrounded = await call('shell', { command: ['sh', '-c', `${job} & echo hi`], timeout_ms: 9_000 });
    expect(JSON.parse(backgrounded.content[0]!.text)).toMatchObject({ output: 'hi\n', metadata: { exit_code: 0 } });
    expect(performance.now() - begun).toBeLessThan(6_000);
    // Nothing of the call outlives it on the exec-server's side either.
    expect(processesRunning(job)).toEqual([]);
    const unknown = await call('shell', { command: ['true'], executor: 'mars' });
    expect(unknown.isError).toBe(true);
  });

  it('answers an unknown executor with the names it has', async () => {
    const reply = await call('exec_command', { cmd: 'echo hi', executor: 'mars' });
    expect(reply.isError).toBe(true);
    expect(reply.content[0]!.text).toMatch(/Unknown executor "mars"; this server runs commands on `box`, `here`/);
  });
});
