// Starts a server process that prints its ws:// URL as the first line of stdout (`codex exec-server`, ours), in the
// background with its logs in a state folder, and stops it by pid.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { endProcess, isRunning, pollFor, tailOf } from './spawned.js';

export interface RunningServer {
  /** The ws:// URL the server printed. */
  readonly url: string;
  /** What a manager's `executors` takes to reach it: the URL, with `?token-file=` when the server wants a token. */
  readonly executorUrl: string;
  /** The bearer token it wants, if any (kept in a file in its state folder, mode 600). */
  readonly token?: string;
  readonly pid: number;
  /** Where its stdout and stderr go, for a failing test's message. */
  readonly logDir: string;
  /** Ends the server by its pid and removes its folder. */
  stop(): Promise<void>;
}

export interface ServerLaunch {
  /** For messages: "codex exec-server", "our exec-server". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** The server's own folder (logs, maybe its CODEX_HOME); stop() removes it. */
  readonly stateDir: string;
  readonly startTimeoutMs?: number;
  /** The token file given to the server (in `stateDir`), when it wants one. */
  readonly tokenFile?: { path: string; token: string };
}

function firstLine(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const end = text.indexOf('\n');
  return end < 0 ? undefined : text.slice(0, end).trim();
}

export async function startWsServer(launch: ServerLaunch): Promise<RunningServer> {
  const stdoutPath = join(launch.stateDir, 'stdout.log');
  const stderrPath = join(launch.stateDir, 'stderr.log');
  const stdout = openSync(stdoutPath, 'w');
  const stderr = openSync(stderrPath, 'w');
  // Files, not pipes: a server that logs on after this process stopped reading must never block on a full pipe.
  // Detached: its own process group, so a Ctrl-C meant for vitest reaches it only through stop().
  const child = spawn(launch.command, launch.args, {
    cwd: launch.stateDir,
    env: launch.env,
    stdio: ['ignore', stdout, stderr],
    detached: true,
  });
  closeSync(stdout);
  closeSync(stderr);
  child.unref();
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  const pid = child.pid;
  const stop = async () => {
    if (pid !== undefined) await endProcess(pid);
    rmSync(launch.stateDir, { recursive: true, force: true });
  };
  const failure = (why: string) =>
    new Error(`${launch.name} (${launch.command} ${launch.args.join(' ')}) ${why}; stderr: ${tailOf(stderrPath)}`);
  try {
    const line = await pollFor(
      () => {
        if (spawnError) throw failure(`could not be started: ${spawnError.message}`);
        const first = firstLine(stdoutPath);
        if (first !== undefined) return first;
        if (pid === undefined || !isRunning(pid)) throw failure('exited before printing its URL');
        return undefined;
      },
      launch.startTimeoutMs ?? 15_000,
      `${launch.name} to print its URL`,
    );
    if (!/^ws:\/\/127\.0\.0\.1:[1-9]\d*\/?$/.test(line)) throw failure(`printed ${JSON.stringify(line)}, not its URL`);
    const url = line.replace(/\/$/, '');
    const { tokenFile } = launch;
    return {
      url,
      executorUrl: tokenFile ? `${url}?token-file=${tokenFile.path}` : url,
      ...(tokenFile ? { token: tokenFile.token } : {}),
      pid: pid as number,
      logDir: launch.stateDir,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
