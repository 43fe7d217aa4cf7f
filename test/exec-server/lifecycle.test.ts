// Session and process lifetimes with the 80 s rules shortened: detach grace, resume, retention after close, the
// 1 MiB output window, and long polls.
import { describe, expect, it, vi } from 'vitest';
import { isAlive } from '../helpers/processes.js';
import { PATIENT, bash, decode, useExecServer } from './client.js';

// The grace must outlast a reconnection on a loaded machine (a new WebSocket, the peer check, initialize): at 400 ms
// a resume came too late once in a run of the whole suite. The retention stays short.
const start = useExecServer({ sessionGraceMs: 2_000, retentionMs: 400 });

describe('exec-server sessions and processes over time', () => {
  it('keeps a detached session for the grace period, resumable once, then ends its processes', async () => {
    const { dir, client } = await start();
    const a = await client();
    const { sessionId } = await a.initialize();
    const { pid } = await a.call('process/start', bash('s', 'sleep 30', dir));
    // Attached elsewhere: -32010.
    const other = await client();
    await expect(other.call('initialize', { clientName: 'x', resumeSessionId: sessionId })).rejects.toMatchObject({
      code: -32010,
      message: `session ${sessionId} is already attached to another connection`,
    });
    await a.close();
    const b = await client();
    expect((await b.initialize({ clientName: 'b', resumeSessionId: sessionId })).sessionId).toBe(sessionId);
    expect(await b.call('process/read', { processId: 's' })).toMatchObject({ exited: false });
    await b.close();
    expect(isAlive(pid)).toBe(true);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), PATIENT);
    const c = await client();
    await expect(c.call('initialize', { clientName: 'c', resumeSessionId: sessionId })).rejects.toMatchObject({
      code: -32600,
      message: `unknown session id ${sessionId}`,
    });
  });

  it('keeps a closed process readable, its id taken, for the retention period, then frees the id', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize();
    await c.call('process/start', bash('r', 'echo once', dir));
    await c.waitForEvent('closed', 'r');
    expect((await c.call('process/read', { processId: 'r' })).closed).toBe(true);
    await expect(c.call('process/start', bash('r', 'true', dir))).rejects.toMatchObject({
      message: 'process r already exists',
    });
    await vi.waitFor(
      () =>
        expect(c.call('process/read', { processId: 'r' })).rejects.toMatchObject({ message: 'unknown process id r' }),
      PATIENT,
    );
    expect((await c.call('process/start', bash('r', 'echo twice', dir))).processId).toBe('r');
  });

  it('retains the last 1 MiB of output in whole chunks; seq still counts every chunk', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize();
    await c.call('process/start', bash('big', "head -c 3000005 /dev/zero | tr '\\0' a", dir));
    const closed = await c.waitForEvent('closed', 'big');
    const outputs = c.events('big').filter((m) => m.method === 'process/output');
    expect(outputs.reduce((n, m) => n + Buffer.from(m.params.chunk, 'base64').length, 0)).toBe(3_000_005);
    const read = await c.call('process/read', { processId: 'big', afterSeq: 0 });
    const bytes = read.chunks.reduce((n: number, ch: { chunk: string }) => n + decode(ch.chunk).length, 0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(bytes).toBeGreaterThan(1024 * 1024 - 8192);
    expect(read.chunks[0].seq).toBeGreaterThan(1);
    expect(read.chunks.at(-1).seq).toBe(outputs.at(-1)!.params.seq);
    expect(read.nextSeq).toBe(closed.params.seq + 1);
  });

  it('answers a long poll when output comes, or at waitMs, and answers other requests meanwhile', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize();
    await c.call('process/start', bash('slow', 'sleep 0.4; echo hi; sleep 30', dir));
    const began = Date.now();
    const poll = c.call('process/read', { processId: 'slow', waitMs: 5000 });
    // Not held up by the pending poll (the real server's default would answer after it).
    expect(await c.call('environment/status')).toEqual({ status: 'ready' });
    expect(Date.now() - began).toBeLessThan(300);
    const woken = await poll;
    expect(woken.chunks.map((ch: { chunk: string }) => decode(ch.chunk))).toEqual(['hi\n']);
    expect(Date.now() - began).toBeGreaterThanOrEqual(350);
    expect(Date.now() - began).toBeLessThan(3000);
    const quiet = Date.now();
    const empty = await c.call('process/read', { processId: 'slow', afterSeq: 1, waitMs: 500 });
    expect(empty).toMatchObject({ chunks: [], nextSeq: 2, exited: false });
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(450);
    // Woken by the exit too.
    const atExit = c.call('process/read', { processId: 'slow', afterSeq: 1, waitMs: 5000 });
    await c.call('process/terminate', { processId: 'slow' });
    expect(await atExit).toMatchObject({ chunks: [], exited: true });
  });
});
