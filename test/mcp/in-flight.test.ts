// A call in flight is activity, and every call in flight gets an answer when the server shuts down.
import { describe, expect, it } from 'vitest';
import { RawStdioServer } from '../reliability/raw-stdio.js';
import { isAlive, startServe } from './cli-process.js';
import { structuredOf } from './client-scenarios.js';
import { TOKEN_ENV, connectHttp, rawToolCall, type HttpConnection } from './http-client.js';

const SLEEPER = { cmd: 'sleep 600', login: false, tty: false, yield_time_ms: 250 };

async function startSleeper(connection: HttpConnection): Promise<number> {
  const started = await connection.client.callTool({ name: 'exec_command', arguments: SLEEPER });
  return structuredOf<{ session_id: number }>(started).session_id;
}

describe('serve: calls in flight', () => {
  it('counts a poll longer than --idle-timeout-s as activity: it answers running and its client lives on', async () => {
    const server = await startServe(['--structured-output', '--idle-timeout-s', '3'], TOKEN_ENV);
    try {
      const connection = await connectHttp(server.url);
      const sessionId = await startSleeper(connection);
      const started = Date.now();
      const poll = await connection.client.callTool(
        { name: 'write_stdin', arguments: { session_id: sessionId, chars: '', yield_time_ms: 10_000 } },
        undefined,
        { timeout: 30_000 },
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
      expect(structuredOf<{ state: string; session_id: number }>(poll)).toMatchObject({
        state: 'running',
        session_id: sessionId,
      });
      const { sessions } = structuredOf<{ sessions: Array<{ session_id: number }> }>(
        await connection.client.callTool({ name: 'list_sessions', arguments: {} }),
      );
      expect(sessions.map((s) => s.session_id)).toEqual([sessionId]);
      expect(server.stderr()).not.toMatch(/ended: idle/);
      await connection.client.close();
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('on SIGTERM answers an open poll before its connection closes', async () => {
    const server = await startServe(['--structured-output', '--structured-output'], TOKEN_ENV);
    let stopped = false;
    try {
      const connection = await connectHttp(server.url);
      const sessionId = await startSleeper(connection);
      const { sessions } = structuredOf<{ sessions: Array<{ pid: number }> }>(
        await connection.client.callTool({ name: 'list_sessions', arguments: {} }),
      );
      const pid = sessions[0]!.pid;
      const poll = await rawToolCall(server.url, connection, 77, 'write_stdin', {
        session_id: sessionId,
        chars: '',
        yield_time_ms: 20_000,
      });
      expect(poll.status).toBe(200);
      const started = Date.now();
      const exit = await server.stop();
      stopped = true;
      const reply = await poll.messages();
      expect(exit).toEqual({ code: 0, signal: null });
      expect(reply.broken).toBeUndefined();
      const answer = reply.messages.find((m) => m.id === 77);
      expect(answer, `no answer to the open poll (${reply.bytes} bytes)`).toBeDefined();
      // Its final answer (the session was closed: exited), or at least a JSON-RPC error.
      if (answer?.result) expect(answer.result.structuredContent).toMatchObject({ state: 'exited' });
      else expect(answer?.error?.message).toMatch(/shut/i);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(isAlive(pid)).toBe(false);
    } finally {
      if (!stopped) await server.stop();
    }
  }, 60_000);
});

describe('mcp (stdio): calls in flight', () => {
  async function openPoll(server: RawStdioServer): Promise<void> {
    await server.initialize();
    const started = await server.request(1, 'tools/call', { name: 'exec_command', arguments: SLEEPER });
    const sessionId = started.result?.structuredContent?.session_id;
    expect(sessionId).toBeTypeOf('number');
    server.send(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'write_stdin', arguments: { session_id: sessionId, chars: '', yield_time_ms: 20_000 } },
      })}\n`,
    );
    // Messages are taken in order: once this is answered, the poll has been taken too.
    const listed = await server.request(3, 'tools/call', { name: 'list_sessions', arguments: {} });
    expect(listed.id).toBe(3);
  }

  it('on SIGTERM answers an open poll before exiting', async () => {
    const server = new RawStdioServer(['--structured-output']);
    try {
      await openPoll(server);
      process.kill(server.pid, 'SIGTERM');
      const answer = await server.next(10_000);
      expect(answer.id).toBe(2);
      if (answer.result) expect(answer.result.structuredContent).toMatchObject({ state: 'exited' });
      else expect(answer.error?.message).toMatch(/shut/i);
      expect(await server.exited).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('at end of input answers an open poll before exiting', async () => {
    const server = new RawStdioServer(['--structured-output']);
    try {
      await openPoll(server);
      const exited = server.close();
      const answer = await server.next(10_000);
      expect(answer.id).toBe(2);
      if (answer.result) expect(answer.result.structuredContent).toMatchObject({ state: 'exited' });
      else expect(answer.error?.message).toMatch(/shut/i);
      expect(await exited).toBe(0);
    } finally {
      await server.close();
    }
  }, 60_000);
});
