// Raw TCP connections to a listener (serve, exec-server), and a flood of them run as another local user.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, vi } from 'vitest';
import { ROOT } from '../mcp/cli-process.js';
import { CANNOT_SWITCH_USER, NOBODY_IDS } from './nobody.js';

export interface RawSocket {
  socket: Socket;
  connectedAt: number;
  closedAt?: number;
  received: string;
}

/** A connection to 127.0.0.1:`port`, with what came back and when it closed; `onConnect` writes what it sends. */
export function rawSocket(port: number, onConnect: (raw: RawSocket) => void): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const raw: RawSocket = { socket, connectedAt: 0, received: '' };
    socket.on('data', (chunk: Buffer) => (raw.received += chunk.toString()));
    socket.on('close', () => (raw.closedAt = performance.now()));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    socket.once('connect', () => {
      raw.connectedAt = performance.now();
      socket.off('error', reject);
      onConnect(raw);
      resolve(raw);
    });
  });
}

/** What test/fixtures/connection-flood.mjs does on each connection it holds (see there). */
export type FloodMode = 'static' | 'silent' | 'half-headers';

/** The flood's script, copied where nobody can read it (the checkout may sit in a folder nobody cannot enter). */
let floodDir: string | undefined;
afterAll(() => {
  if (floodDir !== undefined) rmSync(floodDir, { recursive: true, force: true });
  floodDir = undefined;
});
function floodScript(): string {
  if (floodDir === undefined) {
    floodDir = mkdtempSync(join(tmpdir(), 'ue-flood-'));
    chmodSync(floodDir, 0o755);
    const script = join(floodDir, 'connection-flood.mjs');
    copyFileSync(join(ROOT, 'test/fixtures/connection-flood.mjs'), script);
    chmodSync(script, 0o644);
  }
  return join(floodDir, 'connection-flood.mjs');
}

/**
 * test/fixtures/connection-flood.mjs against `port`, run as another local user (nobody) when this test can switch
 * to it, else as this user: resolves once it holds `count` connections without the token; `stop()` ends it by its
 * pid and answers how many connections it opened in all.
 */
async function flood(port: number, count: number, mode: FloodMode): Promise<{ stop(): Promise<number> }> {
  const script = floodScript();
  const node = [process.execPath, script, String(port), String(count), mode];
  const [command, ...args] = CANNOT_SWITCH_USER === undefined ? ['setpriv', ...NOBODY_IDS, ...node] : node;
  const child = spawn(command!, args, {
    cwd: floodDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await vi.waitFor(() => expect(stdout).toContain(`holding ${count}`), { timeout: 10_000, interval: 20 });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { opened: number }).opened;
    },
  };
}

/** Runs `attempt`, failing with a reason after `ms`: against a server that refuses it, a client may wait for ever. */
export async function within<T>(ms: number, what: string, attempt: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([attempt, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Runs `tokenHolder` while another local user's flood (see `flood`) holds `count` connections to `port`, the
 * server's --max-connections; fails it after 20 s without an answer.
 */
export async function whileFlooded<T>(
  port: number,
  count: number,
  mode: FloodMode,
  tokenHolder: () => Promise<T>,
): Promise<T> {
  const attack = await flood(port, count, mode);
  try {
    // Let the flood settle with all of them open, so the token holder comes in at the cap.
    await new Promise((resolve) => setTimeout(resolve, 300));
    return await within(20_000, 'the token holder', tokenHolder());
  } finally {
    expect(await attack.stop()).toBeGreaterThanOrEqual(count);
  }
}
