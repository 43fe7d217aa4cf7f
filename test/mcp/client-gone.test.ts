// A client process that goes away without DELETE (killed, or `claude -p` exiting) has its sessions ended after the
// disconnect grace, not the idle timeout; one that comes back within the grace keeps them.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readSessionList } from '../helpers/exec-text.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { isAlive, ROOT, startServe } from './cli-process.js';
import { textOf } from './client-scenarios.js';
import { connectHttp, TEST_TOKEN, TOKEN_ENV } from './http-client.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-http-client.mjs');
const GRACE_S = 2;

interface ClientProcess {
  child: ChildProcess;
  mcpSessionId: string;
  /** The pid of its `sleep 600` session (none for a resumed client). */
  pid: number;
}

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts the client fixture; `ready` resolves once it printed its line (its session started, its stream open).
 * `resume`: the MCP session to resume, or `-` for one written to its stdin later (see waitingClient).
 */
function spawnClient(
  url: string,
  mode: 'stream' | 'no-stream',
  resume?: string,
): { child: ChildProcess; ready: Promise<ClientProcess> } {
  const child = spawn(process.execPath, [FIXTURE, url, mode], {
    cwd: ROOT,
    env: { ...process.env, MCP_TOKEN: TEST_TOKEN, ...(resume ? { MCP_SESSION_ID: resume } : {}) },
    stdio: [resume === '-' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = new Promise<ClientProcess>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) resolve({ child, ...(JSON.parse(line) as Omit<ClientProcess, 'child'>) });
    });
    child.once('exit', (code, signal) => reject(new Error(`client exited (${code ?? signal}): ${stderr}`)));
  });
  return { child, ready };
}

const startClient = (url: string, mode: 'stream' | 'no-stream', resume?: string) =>
  spawnClient(url, mode, resume).ready;

/**
 * A client process started and loaded ahead, that resumes the MCP session it is then given: a restart as quick as a
 * client's own, without the seconds a loaded machine takes to start node and load the SDK (more than the grace).
 */
async function waitingClient(url: string): Promise<{ resume(mcpSessionId: string): Promise<ClientProcess> }> {
  const { child, ready } = spawnClient(url, 'stream', '-');
  let said = '';
  await new Promise<void>((resolve, reject) => {
    const heard = (chunk: Buffer) => {
      said += chunk.toString();
      if (!said.includes('loaded\n')) return;
      child.stderr!.off('data', heard);
      resolve();
    };
    child.stderr!.on('data', heard);
    ready.catch(reject); // it exited before it loaded
  });
  return {
    resume(mcpSessionId) {
      child.stdin!.end(`${mcpSessionId}\n`);
      return ready;
    },
  };
}

/** SIGKILL to this child, by its pid: it gets no chance to close anything itself. */
async function kill(client: ClientProcess): Promise<void> {
  const exited = new Promise((resolve) => client.child.once('exit', resolve));
  process.kill(client.child.pid!, 'SIGKILL');
  await exited;
}

function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a client that goes away without closing its MCP session', () => {
  it('has its processes ended once every connection closed and the grace passed without a request', async () => {
    const server = await startServe(['--disconnect-grace-s', String(GRACE_S)], TOKEN_ENV);
    try {
      const client = await startClient(server.url, 'stream');
      expect(isAlive(client.pid)).toBe(true);
      await kill(client);
      const killedAt = Date.now();
      await vi.waitFor(() => expect(isAlive(client.pid)).toBe(false), {
        timeout: GRACE_S * 1000 + 6_000,
        interval: 50,
      });
      expect(Date.now() - killedAt).toBeGreaterThanOrEqual(GRACE_S * 1000 - 100);
      // The log line is written once the client's sessions have ended, just after its processes went.
      const gone = `client ${client.mcpSessionId} ended: gone: every connection closed, no request for 2 s; 1 exec`;
      await vi.waitFor(() => expect(server.stderr()).toMatch(new RegExp(gone)), { timeout: 5_000, interval: 50 });
    } finally {
      await server.stop();
    }
  });

  it('keeps them when a restarted client resumes its MCP session within the grace', async () => {
    const server = await startServe(['--disconnect-grace-s', String(GRACE_S)], TOKEN_ENV);
    try {
      const first = await startClient(server.url, 'stream');
      const restart = await waitingClient(server.url);
      await kill(first);
      const second = await restart.resume(first.mcpSessionId);
      await sleep(GRACE_S * 2_000 + 1_000);
      expect(isAlive(first.pid)).toBe(true);
      // Gone again, for good this time: the grace runs from the second one's last connection.
      await kill(second);
      await vi.waitFor(() => expect(isAlive(first.pid)).toBe(false), { timeout: GRACE_S * 1000 + 6_000, interval: 50 });
    } finally {
      await server.stop();
    }
  });

  it('keeps them when its connections drop and its stream comes back, and the client goes on using them', async () => {
    const proxyPort = await freePort();
    const server = await startServe(
      ['--disconnect-grace-s', String(GRACE_S), '--allow-host', `127.0.0.1:${proxyPort}`],
      TOKEN_ENV,
    );
    const proxy = await TcpProxy.start(server.url, proxyPort);
    const { client, transport } = await connectHttp(`${proxy.url('http')}/mcp`);
    try {
      const started = textOf(
        await client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 600', yield_time_ms: 250 } }),
      );
      const sessionId = Number(/Process running with session ID (\d+)/.exec(started)?.[1]);
      const listed = readSessionList(textOf(await client.callTool({ name: 'list_sessions', arguments: {} })));
      const pid = listed.find((s) => s.sessionId === sessionId)!.pid!;
      // The SDK client opens its stream again 1 s after it broke.
      proxy.cut();
      await sleep(GRACE_S * 2_000 + 1_000);
      expect(isAlive(pid)).toBe(true);
      const again = readSessionList(textOf(await client.callTool({ name: 'list_sessions', arguments: {} })));
      expect(again.map((s) => [s.sessionId, s.running])).toEqual([[sessionId, true]]);
      await transport.terminateSession();
      await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5_000 });
    } finally {
      await client.close().catch(() => undefined);
      await proxy.down();
      await server.stop();
    }
  });

  it('keeps them until --idle-timeout-s when it never opened a stream: it looks like a client between turns', async () => {
    const server = await startServe(['--disconnect-grace-s', '1', '--idle-timeout-s', '6'], TOKEN_ENV);
    try {
      const client = await startClient(server.url, 'no-stream');
      await kill(client);
      await sleep(3_000);
      expect(isAlive(client.pid)).toBe(true);
      await vi.waitFor(() => expect(isAlive(client.pid)).toBe(false), { timeout: 12_000, interval: 100 });
      const idle = new RegExp(`client ${client.mcpSessionId} ended: idle for over 6 s; 1 exec`);
      await vi.waitFor(() => expect(server.stderr()).toMatch(idle), { timeout: 5_000, interval: 50 }); // logged just after
    } finally {
      await server.stop();
    }
  });
});
