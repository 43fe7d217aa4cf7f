// Floods against `serve`: slow connections opened as fast as possible, and initialize-only
// clients by the thousand. The server's descriptors and memory stay bounded, and it serves a normal client after.
import { readFileSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { startServe } from '../mcp/cli-process.js';
import { structuredOf } from '../mcp/client-scenarios.js';
import { TOKEN_ENV, connectHttp, rawInitialize } from '../mcp/http-client.js';
import { SOAK } from './harness.js';

const FLOOD_MS = SOAK ? 20_000 : 3_000;
const MAX_CONNECTIONS = SOAK ? 256 : 32;
const INITIALIZES = SOAK ? 20_000 : 300;
const MAX_CLIENTS = SOAK ? 64 : 8;

const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** Slowloris from this process: keeps up to `width` connections opening, each sending a partial request. */
function slowloris(port: number, width: number): { stop: () => number } {
  const open = new Set<Socket>();
  let opened = 0;
  let stopped = false;
  const one = () => {
    if (stopped) return;
    const socket = connect({ host: '127.0.0.1', port });
    open.add(socket);
    socket.on('connect', () => {
      opened++;
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      setImmediate(one);
    });
  };
  for (let i = 0; i < width; i++) one();
  return {
    stop: () => {
      stopped = true;
      for (const socket of open) socket.destroy();
      return opened;
    },
  };
}

async function servesANormalClient(url: string): Promise<void> {
  const { client } = await connectHttp(url);
  const result = await client.callTool({
    name: 'exec_command',
    arguments: { cmd: 'echo ok', login: false, tty: false, yield_time_ms: 5_000 },
  });
  expect(structuredOf<{ output: string }>(result).output).toBe('ok\n');
  await client.close();
}

describe('serve under floods', () => {
  it('keeps its descriptors under --max-connections while slow connections pour in', async () => {
    const server = await startServe(['--structured-output', '--max-connections', String(MAX_CONNECTIONS)], TOKEN_ENV);
    const pid = server.child.pid!;
    const baseline = fdCount(pid);
    const flood = slowloris(server.port, MAX_CONNECTIONS * 4);
    let most = baseline;
    const until = Date.now() + FLOOD_MS;
    try {
      while (Date.now() < until) {
        most = Math.max(most, fdCount(pid));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      const opened = flood.stop();
      console.log(
        `slowloris: ${opened} connections opened in ${FLOOD_MS} ms; server fds ${baseline} → at most ${most}`,
      );
    }
    // A refused connection holds a descriptor for a moment before Node closes it.
    expect(most).toBeLessThanOrEqual(baseline + MAX_CONNECTIONS + 16);
    await vi.waitFor(() => servesANormalClient(server.url), { timeout: 20_000, interval: 250 });
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('holds at most --max-clients clients however many initialize, and its memory stays flat', async () => {
    const server = await startServe(['--structured-output', '--max-clients', String(MAX_CLIENTS)], TOKEN_ENV);
    const pid = server.child.pid!;
    let next = 0;
    const flood = async (until: number) => {
      const worker = async () => {
        while (next < until) {
          const { status } = await rawInitialize(server.url, next++);
          expect(status).toBe(200);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
    };
    // A first flood loads what the server defers until a client comes, and grows its heap to the load: the same
    // flood again must then leave it about where it was (17–20 MiB more here; a leak of 200 KiB a client would add
    // 60). Measured from the start, the one-time part alone was 56–102 MiB of RSS, depending on when the heap grew:
    // a threshold of 100 on it failed now and then.
    const started = rssMiB(pid);
    await flood(INITIALIZES);
    const before = rssMiB(pid);
    await flood(2 * INITIALIZES);
    const after = rssMiB(pid);
    const counts = [...server.stderr().matchAll(/\((\d+) connected\)/g)].map((m) => Number(m[1]));
    console.log(
      `2 × ${INITIALIZES} initializes: RSS ${started.toFixed(0)} → ${before.toFixed(0)} → ${after.toFixed(0)} MiB`,
    );
    expect(counts).toHaveLength(2 * INITIALIZES);
    expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_CLIENTS);
    expect(after - before).toBeLessThan(SOAK ? 150 : 75);
    await servesANormalClient(server.url);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 600_000);
});
