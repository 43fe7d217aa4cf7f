// `unified-exec exec-server` as a command: the URL on the first line, stdio mode, token handling, refusing an open
// non-loopback listen, and that its processes end with it, whether by SIGTERM or by kill -9 (the watchdog).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isAlive, killIfAlive } from '../helpers/processes.js';
import { BEARER, CLI, TOKEN, TOKEN_ENV, cleanEnv, runExecServer, startWsServer } from './cli-process.js';
import { PATIENT, TestClient, bash, type Message } from './client.js';

const pids: number[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const pid of pids.splice(0)) killIfAlive(pid);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'exec-server-cli-'));
  dirs.push(dir);
  return dir;
}

const startWs = (env: Record<string, string> = TOKEN_ENV) => startWsServer([], env);

describe('unified-exec exec-server (CLI)', () => {
  it('prints the URL first; on SIGTERM it ends every process it started and exits 0', async () => {
    const { child, url, exited } = await startWs();
    const c = await TestClient.open(url, BEARER);
    await c.initialize();
    const { pid } = await c.call('process/start', bash('s', 'sleep 60', tempDir()));
    pids.push(pid);
    expect(isAlive(pid)).toBe(true);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), PATIENT);
  });

  it('kill -9 of the server still ends its processes (the watchdog)', async () => {
    const { child, url } = await startWs();
    const c = await TestClient.open(url, BEARER);
    await c.initialize();
    const dir = tempDir();
    const { pid: piped } = await c.call('process/start', bash('p', 'sleep 60', dir));
    const { pid: tty } = await c.call('process/start', bash('t', 'sleep 60', dir, { tty: true }));
    pids.push(piped, tty);
    child.kill('SIGKILL');
    await vi.waitFor(() => expect([isAlive(piped), isAlive(tty)]).toEqual([false, false]), PATIENT);
  });

  it('speaks newline-delimited JSON on stdio, and exits 0 when stdin ends', async () => {
    const server = runExecServer(['--listen', 'stdio']);
    const send = (message: Message) => server.child.stdin!.write(`${JSON.stringify(message)}\n`);
    send({ id: 1, method: 'initialize', params: { clientName: 'stdio-test' } });
    send({ method: 'initialized', params: {} });
    send({ id: 2, method: 'process/start', params: bash('s', 'echo via-stdio', tempDir()) });
    await vi.waitFor(() => expect(server.lines.some((l) => l.includes('process/closed'))).toBe(true), PATIENT);
    const messages = server.lines.map((l) => JSON.parse(l) as Message); // every stdout line is one message
    expect(messages[0]).toMatchObject({ id: 1, result: { sessionId: expect.any(String) } });
    expect(messages.find((m) => m.id === 2)?.result).toMatchObject({ processId: 's', sandboxType: 'none' });
    const output = messages.find((m) => m.method === 'process/output')!;
    expect(Buffer.from(output.params.chunk, 'base64').toString()).toBe('via-stdio\n');
    expect(messages.filter((m) => m.params?.processId === 's').map((m) => m.method)).toEqual([
      'process/output',
      'process/exited',
      'process/closed',
    ]);
    server.child.stdin!.end();
    expect(await server.exited).toBe(0);
  });

  it('takes a token from the environment, asks clients for it, and keeps it from their processes', async () => {
    const { url } = await startWs();
    await expect(TestClient.open(url)).rejects.toThrow(/401/);
    const c = await TestClient.open(url, BEARER);
    await c.initialize();
    await c.call('process/start', {
      ...bash('e', 'env', tempDir()),
      envPolicy: { inherit: 'all', ignoreDefaultExcludes: true, exclude: [], set: {}, includeOnly: [] },
    });
    await c.waitForEvent('closed', 'e');
    expect(c.output('e')).toContain('PATH=');
    expect(c.output('e')).not.toContain(TOKEN);
    await c.close();
  });

  it('refuses --no-auth on a non-loopback address, an empty token, and a listen URL it does not know', () => {
    const open = spawnSync(process.execPath, [CLI, 'exec-server', '--listen', 'ws://0.0.0.0:0'], {
      encoding: 'utf8',
      env: cleanEnv({ UNIFIED_EXEC_EXEC_SERVER_TOKEN: '' }),
    });
    expect(open.status).toBe(2);
    expect(open.stderr).toContain('UNIFIED_EXEC_EXEC_SERVER_TOKEN: a token needs at least'); // empty is no token
    const none = spawnSync(process.execPath, [CLI, 'exec-server', '--listen', 'ws://0.0.0.0:0', '--no-auth'], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.stderr).toContain(
      'Refusing to listen on 0.0.0.0 without a token: --no-auth is for loopback addresses only',
    );
    const stdio = spawnSync(process.execPath, [CLI, 'exec-server', '--listen', 'stdio', '--no-auth'], {
      encoding: 'utf8',
    });
    expect(stdio.status).toBe(2);
    expect(stdio.stderr).toContain('--listen stdio has no listener, so no token');
    const bad = spawnSync(process.execPath, [CLI, 'exec-server', '--listen', 'http://127.0.0.1:1'], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('unsupported --listen URL http://127.0.0.1:1; expected `ws://IP:PORT` or `stdio`');
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain(
      'unified-exec exec-server [--listen ws://IP:PORT|stdio] [--token-file FILE | --no-auth]',
    );
  });
});
