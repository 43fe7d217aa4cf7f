// The reference kit's exec-server/tap.mjs between Codex and an exec-server: a logging relay that records every
// frame both ways (`--decode` adds the base64 chunks as text), for finding out why a server does not suit Codex.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXEC_SERVER_TAP, REPO_ROOT } from './codex-install.js';
import { endProcess, freePort, isRunning, pollFor, tailOf } from './spawned.js';

export interface RunningTap {
  /** Point Codex here (CODEX_EXEC_SERVER_URL). */
  readonly url: string;
  readonly pid: number;
  /** The frames, one a line: `+<ms> c<N> C>S <frame>` (Codex to server), `S>C` (server to Codex). */
  readonly logPath: string;
  /** Ends the tap by its pid; its log stays. */
  stop(): Promise<void>;
}

/** Starts tap.mjs relaying to `upstreamUrl`, writing its log to `<logDir>/tap-<port>.log`. */
export async function startTap(upstreamUrl: string, logDir: string): Promise<RunningTap> {
  const port = await freePort();
  const logPath = join(logDir, `tap-${port}.log`);
  const stderrPath = join(logDir, `tap-${port}.stderr`);
  const stdout = openSync(logPath, 'w');
  const stderr = openSync(stderrPath, 'w');
  const child = spawn(process.execPath, [EXEC_SERVER_TAP, String(port), upstreamUrl, '--decode'], {
    // tap.mjs needs `ws`, which it looks up on NODE_PATH among other places.
    env: { ...process.env, NODE_PATH: join(REPO_ROOT, 'node_modules') },
    stdio: ['ignore', stdout, stderr],
    detached: true,
  });
  closeSync(stdout);
  closeSync(stderr);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error(`tap.mjs could not be started: ${tailOf(stderrPath)}`);
  await pollFor(
    () => {
      if (readFileSync(stderrPath, 'utf8').includes('tap listening')) return true;
      if (!isRunning(pid)) throw new Error(`tap.mjs exited: ${tailOf(stderrPath)}`);
      return undefined;
    },
    10_000,
    'tap.mjs to listen',
  );
  return { url: `ws://127.0.0.1:${port}`, pid, logPath, stop: () => endProcess(pid) };
}

/** The methods of the requests and notifications Codex sent through a tap, in order (from its log). */
export function clientMethods(logPath: string): string[] {
  const methods: string[] = [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    const frame = / C>S (\{.*)$/.exec(line)?.[1];
    if (frame === undefined) continue;
    const method = (JSON.parse(frame) as { method?: unknown }).method;
    if (typeof method === 'string') methods.push(method);
  }
  return methods;
}
