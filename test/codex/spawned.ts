// Small process and folder helpers for the Codex interop harness: state folders, free ports, waiting, ending by pid.
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isAlive } from '../helpers/processes.js';

/**
 * Codex's state folders go under /var/tmp, never under the temp dir ($TMPDIR or /tmp): there Codex refuses to
 * create its helper links (codex-linux-sandbox, apply_patch) and sandboxed tty processes then fail to start.
 */
const STATE_ROOT = '/var/tmp';

/** A fresh folder `/var/tmp/<prefix>XXXXXX`; the caller removes it. */
export function makeStateDir(prefix: string): string {
  return mkdtempSync(join(STATE_ROOT, prefix));
}

/**
 * A HOME of its own under `dir`, for a server whose commands run login shells: this machine's login profile (root's
 * runs `pyenv init`, 1.8-3.8 s a login shell on a busy machine) would hold up every command's first output.
 */
export function ownHome(dir: string): string {
  const home = join(dir, 'user');
  mkdirSync(home);
  return home;
}

/** A TCP port on 127.0.0.1 that was free a moment ago (a server that cannot bind it should be retried). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** True while `pid` runs (a zombie counts as gone): the suite's one reading of /proc for it. */
export const isRunning = isAlive;

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** Polls `probe` until it returns a value other than undefined; throws `what` after `timeoutMs`. */
export async function pollFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** Ends a process this harness started, by its pid: SIGTERM, then SIGKILL if it outlives `graceMs`. */
export async function endProcess(pid: number, graceMs = 3_000): Promise<void> {
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  };
  if (!isRunning(pid)) return;
  send('SIGTERM');
  try {
    await pollFor(() => (isRunning(pid) ? undefined : true), graceMs, `pid ${pid} to exit after SIGTERM`);
  } catch {
    send('SIGKILL');
    await pollFor(() => (isRunning(pid) ? undefined : true), graceMs, `pid ${pid} to exit after SIGKILL`);
  }
}

/** The environment without proxy settings, so Codex and the fake model server talk over loopback directly. */
export function directEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, NO_PROXY: '127.0.0.1,localhost' };
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy']) {
    delete env[name];
  }
  return env;
}

/** The end of a log file for an error message, or a note that there is none. */
export function tailOf(path: string, chars = 2_000): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > chars ? `…${text.slice(-chars)}` : text || '(empty)';
  } catch {
    return '(missing)';
  }
}
