// Starting and stopping the built CLI as a child process; tests only ever signal children they started, by pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { liveServes } from '../helpers/live-serves.js';

export { killLeftoverServes } from '../helpers/live-serves.js';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const CLI = join(ROOT, 'dist/cli/index.js');

/**
 * Flags for suites that test the engine through the CLI and read host pids of what commands start: no sandbox
 * (test/sandbox/ covers the sandboxed default). Left out when the args already choose a sandbox.
 */
export function unsandboxed(args: readonly string[]): string[] {
  return args.includes('--sandbox') ? [...args] : ['--sandbox', 'danger-full-access', ...args];
}

/** The environment without a token the developer may have exported for real use. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('UNIFIED_EXEC_TOKEN' in extra)) delete env.UNIFIED_EXEC_TOKEN;
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion (killed after `timeoutMs`, so a hang fails the test instead of stalling it). */
/** Runs `command` to its end with stdin closed and answers with its exit and output; SIGKILLed after `timeoutMs`. */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function runCli(args: string[], timeoutMs = 30_000, extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runToEnd(process.execPath, [CLI, ...args], { env: { ...cleanEnv(), ...extraEnv }, timeoutMs });
}

export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** SIGTERM to this child only, then waits for it to exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** How to start the CLI with `argv` (its arguments after the script): by default this node on the checkout's build. */
export type CliLauncher = (argv: string[]) => { command: string; args: string[] };
const directly: CliLauncher = (argv) => ({ command: process.execPath, args: [CLI, ...argv] });

/** `unified-exec serve --port 0 ...args`, resolved once it printed the URL it listens on. */
export function startServe(
  args: string[] = [],
  env: Record<string, string> = {},
  launch: CliLauncher = directly,
): Promise<ServeProcess> {
  const { command, args: argv } = launch(['serve', '--port', '0', ...unsandboxed(args)]);
  const child = spawn(command, argv, {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveServes.add(child);
  child.once('exit', () => liveServes.delete(child));
  let stdout = '';
  let stderr = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no URL in 20 s; stdout: ${stdout}\nstderr: ${stderr}`));
    }, 20_000);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stdout);
      if (!match?.[1]) return;
      clearTimeout(timer);
      const url = match[1];
      resolve({
        url,
        port: Number(new URL(url).port),
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code ?? signal}) before printing a URL; stderr: ${stderr}`));
    });
  });
}

/** Alive and not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** A stdio transport that starts `unified-exec mcp ARGS` for an SDK client, stderr piped. */
export function mcpTransport(
  args: string[] = [],
  options: { cwd?: string; env?: Record<string, string> } = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env) as Record<string, string>,
    stderr: 'pipe',
  });
}
