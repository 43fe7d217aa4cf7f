// The same conversation, run by the MCP SDK's own Client over whichever transport a test file connected.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect, it, vi } from 'vitest';
import { isAlive } from './cli-process.js';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

export function textOf(result: CallResult): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe('text');
  return content[0]?.text ?? '';
}

export function structuredOf<T = Record<string, unknown>>(result: CallResult): T {
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as T;
}

export const ECHO_HELLO_TEXT =
  /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n$/;

interface ExecStructured {
  chunk_id: string;
  output: string;
  exit_code?: number;
  session_id?: number;
  state: string;
}

/** Polls a session until `done` says the accumulated output is complete (or the process exited). */
export async function pollUntil(
  client: Client,
  sessionId: number,
  chars: string,
  done: (output: string, last: ExecStructured) => boolean,
  deadlineMs = 20_000,
): Promise<{ output: string; last: ExecStructured }> {
  const until = Date.now() + deadlineMs;
  let output = '';
  let input = chars;
  for (;;) {
    const result = await client.callTool({
      name: 'write_stdin',
      arguments: { session_id: sessionId, chars: input, yield_time_ms: 500 },
    });
    const last = structuredOf<ExecStructured>(result);
    output += last.output;
    input = '';
    if (done(output, last) || last.exit_code !== undefined) return { output, last };
    if (Date.now() > until) throw new Error(`gave up waiting; output so far: ${JSON.stringify(output)}`);
  }
}

/** Registers the shared client tests; `client()` returns a connected client when a test runs. */
export function defineClientScenarios(client: () => Client): void {
  it('lists the four tools with their required parameters and schemas', async () => {
    const { tools } = await client().listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['close_session', 'exec_command', 'list_sessions', 'write_stdin']);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('exec_command')?.inputSchema.required).toEqual(['cmd']);
    expect(byName.get('write_stdin')?.inputSchema.required).toEqual(['session_id']);
    expect(byName.get('close_session')?.inputSchema.required).toEqual(['session_id']);
    expect(byName.get('list_sessions')?.inputSchema.required ?? []).toEqual([]);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.outputSchema?.type).toBe('object');
      for (const property of Object.values(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description?.length).toBeGreaterThan(10);
      }
    }
  });

  it('runs echo hello and answers with the compat text and structured fields', async () => {
    const result = await client().callTool({ name: 'exec_command', arguments: { cmd: 'echo hello' } });
    expect(result.isError ?? false).toBe(false);
    const text = textOf(result);
    expect(text).toMatch(ECHO_HELLO_TEXT);
    const structured = structuredOf<ExecStructured & Record<string, unknown>>(result);
    expect(structured).toMatchObject({ output: 'hello\n', exit_code: 0, original_token_count: 2, state: 'exited' });
    expect(structured).not.toHaveProperty('session_id');
    expect(text).toContain(`Chunk ID: ${structured.chunk_id}`);
  });

  it('types into an interactive bash in a terminal', async () => {
    const started = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'bash --norc --noprofile -i', tty: true, yield_time_ms: 500 },
    });
    const { session_id: sessionId } = structuredOf<ExecStructured>(started);
    expect(sessionId).toBeTypeOf('number');
    expect(textOf(started)).toContain(`Process running with session ID ${sessionId}`);

    const answer = await pollUntil(client(), sessionId!, 'echo $((6*7))\n', (out) => /\b42\b/.test(out));
    expect(answer.output).toMatch(/\b42\b/);
    const exit = await pollUntil(client(), sessionId!, 'exit 0\n', () => false);
    expect(exit.last.exit_code).toBe(0);
  });

  it('lists a running session and closes it, ending its process', async () => {
    const started = await client().callTool({
      name: 'exec_command',
      arguments: { cmd: 'sleep 600', yield_time_ms: 250 },
    });
    const { session_id: sessionId } = structuredOf<ExecStructured>(started);

    const listed = await client().callTool({ name: 'list_sessions', arguments: {} });
    const { sessions } = structuredOf<{
      sessions: Array<{ session_id: number; command: string; pid: number; tty: boolean }>;
    }>(listed);
    const mine = sessions.find((s) => s.session_id === sessionId);
    expect(mine).toMatchObject({ command: 'sleep 600', tty: false });
    expect(textOf(listed)).toContain(`Session ID ${sessionId}: running`);
    expect(isAlive(mine!.pid)).toBe(true);

    const closed = await client().callTool({ name: 'close_session', arguments: { session_id: sessionId } });
    expect(textOf(closed)).toMatch(new RegExp(`^Session ID ${sessionId} closed`));
    expect(structuredOf(closed)).toMatchObject({ session_id: sessionId });
    await vi.waitFor(() => expect(isAlive(mine!.pid)).toBe(false), { timeout: 5_000 });

    const after = structuredOf<{ sessions: Array<{ session_id: number }> }>(
      await client().callTool({ name: 'list_sessions', arguments: {} }),
    );
    expect(after.sessions.map((s) => s.session_id)).not.toContain(sessionId);
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
