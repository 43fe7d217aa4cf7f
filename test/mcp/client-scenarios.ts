// The same conversation, run by the MCP SDK's own Client over whichever transport a test file connected.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, it, vi } from 'vitest';
import { readExecText, readSessionList, type ExecText } from '../helpers/exec-text.js';
import { isAlive } from './cli-process.js';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

export function textOf(result: CallResult): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return content[0]?.text ?? '';
}

/** The structured result of a server started with --structured-output. */
export function structuredOf<T = Record<string, unknown>>(result: CallResult): T {
  expect(result.isError ?? false).toBe(false);
  expect(result.structuredContent).toBeDefined();
  return result.structuredContent as T;
}

/** An exec reply as the model reads it: a success whose only content is the compat text. */
export function execTextOf(result: CallResult): ExecText {
  expect(result.isError ?? false).toBe(false);
  expect(result).not.toHaveProperty('structuredContent');
  return readExecText(textOf(result));
}

const ECHO_HELLO_TEXT =
  /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n$/;

/** Polls a session until `done` says the accumulated output is complete (or the process exited). */
async function pollUntil(
  client: Client,
  sessionId: number,
  chars: string,
  done: (output: string, last: ExecText) => boolean,
  deadlineMs = 20_000,
): Promise<{ output: string; last: ExecText }> {
  const until = Date.now() + deadlineMs;
  let output = '';
  let input = chars;
  for (;;) {
    const result = await client.callTool({
      name: 'write_stdin',
      arguments: { session_id: sessionId, chars: input, yield_time_ms: 500 },
    });
    const last = execTextOf(result);
    output += last.output;
    input = '';
    if (done(output, last) || last.exitCode !== undefined) return { output, last };
    if (Date.now() > until) throw new Error(`gave up waiting; output so far: ${JSON.stringify(output)}`);
  }
}

/** The pid of a session, read off list_sessions' text. */
export async function pidOfSession(client: Client, sessionId: number): Promise<number> {
  const listed = textOf(await client.callTool({ name: 'list_sessions', arguments: {} }));
  const pid = readSessionList(listed).find((s) => s.sessionId === sessionId)?.pid;
  if (pid === undefined) throw new Error(`session ${sessionId} is not listed with a pid: ${listed}`);
  return pid;
}

/** Registers the shared client tests; `client()` returns a connected client when a test runs. */
export function defineClientScenarios(client: () => Client): void {
  it('lists the four tools with their required parameters, and no output schema', async () => {
    const { tools } = await client().listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['close_session', 'exec_command', 'list_sessions', 'write_stdin']);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('exec_command')?.inputSchema.required).toEqual(['cmd']);
    expect(byName.get('write_stdin')?.inputSchema.required).toEqual(['session_id']);
    expect(byName.get('close_session')?.inputSchema.required).toEqual(['session_id']);
    expect(byName.get('list_sessions')?.inputSchema.required ?? []).toEqual([]);
    // Claude Code loads these two from the first turn, tool search or not; the other two it may defer.
    const alwaysLoaded = tools.filter((t) => t._meta?.['anthropic/alwaysLoad'] === true).map((t) => t.name);
    expect(alwaysLoaded).toEqual(['exec_command', 'write_stdin']);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      // Declared, it would make clients show the model structured JSON instead of the text.
      expect(tool).not.toHaveProperty('outputSchema');
      for (const property of Object.values(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description?.length).toBeGreaterThan(10);
      }
    }
  });

  it('runs echo hello and answers with the compat text alone', async () => {
    const result = await client().callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
    expect(result.isError ?? false).toBe(false);
    expect(result).not.toHaveProperty('structuredContent');
    expect(textOf(result)).toMatch(ECHO_HELLO_TEXT);
    expect(execTextOf(result)).toMatchObject({ output: 'hello\n', exitCode: 0, originalTokenCount: 2 });
  });

  it('types into an interactive bash in a terminal', async () => {
    const started = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'bash --norc --noprofile -i', tty: true, yield_time_ms: 500 },
    });
    const { sessionId } = execTextOf(started);
    expect(sessionId).toBeTypeOf('number');

    const answer = await pollUntil(client(), sessionId!, 'echo $((6*7))\n', (out) => /\b42\b/.test(out));
    expect(answer.output).toMatch(/\b42\b/);
    const exit = await pollUntil(client(), sessionId!, 'exit 0\n', () => false);
    expect(exit.last.exitCode).toBe(0);
  });

  it('lists a running session and closes it, ending its process', async () => {
    const started = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'sleep 600', yield_time_ms: 250 },
    });
    const { sessionId } = execTextOf(started);

    const listed = await client().callTool({ name: 'list_sessions', arguments: {} });
    expect(listed).not.toHaveProperty('structuredContent');
    const mine = readSessionList(textOf(listed)).find((s) => s.sessionId === sessionId);
    expect(mine, textOf(listed)).toMatchObject({ running: true, command: 'sleep 600' });
    expect(textOf(listed)).toContain(`Session ID ${sessionId}: running; no tty;`);
    const pid = mine!.pid!;
    expect(isAlive(pid)).toBe(true);

    const closed = await client().callTool({ name: 'close_session', arguments: { session_id: sessionId } });
    expect(closed).not.toHaveProperty('structuredContent');
    expect(textOf(closed)).toMatch(new RegExp(`^Session ID ${sessionId} closed`));
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });

    const after = readSessionList(textOf(await client().callTool({ name: 'list_sessions', arguments: {} })));
    expect(after.map((s) => s.sessionId)).not.toContain(sessionId);
  });

  it('answers an unknown session id with a tool error, not a crash', async () => {
    const result = await client().callTool({ name: 'write_stdin', arguments: { session_id: 424242, chars: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('write_stdin failed: Unknown process id 424242');

    const failedSpawn = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'pwd', workdir: '/nonexistent/dir' },
    });
    expect(failedSpawn.isError).toBe(true);
    expect(textOf(failedSpawn)).toMatch(/^exec_command failed for `pwd`: Failed to create unified exec process: /);

    const badArgument = await client().callTool({ name: 'write_stdin', arguments: { session_id: 'abc' } });
    expect(badArgument.isError).toBe(true);
    expect(textOf(badArgument)).toBe(
      'write_stdin failed: Invalid arguments: `session_id`: expected a positive integer, got "abc" (string)',
    );

    // The server is still there.
    const again = await client().callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
    expect(textOf(again)).toMatch(ECHO_HELLO_TEXT);
  });
}
