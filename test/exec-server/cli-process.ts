// The built CLI's `exec-server` as a child process, its stdout read line by line; ended by pid after each test.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, expect } from 'vitest';
import { killIfAlive } from '../helpers/processes.js';

export const CLI = new URL('../../dist/cli/index.js', import.meta.url).pathname;
/** What the tests' servers take as their token, from UNIFIED_EXEC_EXEC_SERVER_TOKEN. */
export const TOKEN = 'cli-token-0123456789abcdef';
export const TOKEN_ENV = { UNIFIED_EXEC_EXEC_SERVER_TOKEN: TOKEN };
export const BEARER = { Authorization: `Bearer ${TOKEN}` };

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined) killIfAlive(child.pid);
});

/** The environment without a token the developer may have exported. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.UNIFIED_EXEC_EXEC_SERVER_TOKEN;
  return { ...env, ...extra };
}

/** Starts `exec-server ARGS`; resolves with the process and the lines of its stdout, as they come. */
export function runExecServer(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, 'exec-server', ...args], {
    env: cleanEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.splice(0)) w();
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const line = (n: number) =>
    new Promise<string>((resolve) => {
      const check = () => (lines.length > n ? resolve(lines[n]!) : waiters.push(check));
      check();
    });
  /** Resolves once a line of stdout matches. */
  const lineLike = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const found = lines.find((l) => pattern.test(l));
        if (found === undefined) waiters.push(check);
        else resolve(found);
      };
      check();
    });
  return { child, lines, line, lineLike, exited, stderr: () => stderr };
}

/** `exec-server --listen ws://127.0.0.1:0 ARGS`, once it printed its URL and connect lines (to the last one). */
export async function startWsServer(args: string[] = [], env: Record<string, string> = TOKEN_ENV) {
  const server = runExecServer(['--listen', 'ws://127.0.0.1:0', ...args], env);
  // A server that refused its arguments prints no URL: fail with what it said rather than wait for ever.
  const url = await Promise.race([
    server.line(0),
    server.exited.then((code) => {
      throw new Error(`exec-server ${args.join(' ')} exited ${code} before printing its URL: ${server.stderr()}`);
    }),
  ]);
  expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  await server.lineLike(/unified-exec mcp --executor/); // the last of its connect lines
  return { ...server, url, stdout: () => server.lines.join('\n') };
}
