// The reliability suites drive the real stdio server (`node dist/cli/index.js mcp --structured-output`) with the MCP
// SDK's own Client, and read the kernel's view of processes straight from /proc, never through the code under test.
// They test the engine, so they read the structured fields (the SDK checks them against each tool's outputSchema).
import { readFileSync, readdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { vi } from 'vitest';
import type { ExecResult, SessionListResult } from '../../src/tools/output-schemas.js';
import { nodeAsNobody } from '../helpers/nobody.js';
import { CLI, ROOT, cleanEnv, unsandboxed } from '../mcp/cli-process.js';

/** Full counts with SOAK=1 (`npm run test:soak`), small ones otherwise so the whole set stays quick in CI. */
export const SOAK = process.env.SOAK === '1';

export type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** A busy 2-core machine can be slow to answer; a lost reply still fails, just not by the SDK's 60 s default. */
const CALL_TIMEOUT_MS = 300_000;

export interface ServerUnderTest {
  client: Client;
  pid: number;
  stderr(): string;
  /** One tools/call, whatever it answers (tool errors included). */
  call(name: string, args: unknown): Promise<CallResult>;
  /** A call that must succeed: its structured result. */
  exec(args: Record<string, unknown>): Promise<ExecResult>;
  write(sessionId: number, chars: string, extra?: Record<string, unknown>): Promise<ExecResult>;
  list(): Promise<SessionListResult['sessions']>;
  /** Hangs up (the server then ends every session and exits); SIGKILLs the server if it has not exited in 10 s. */
  close(): Promise<void>;
}

export function textOf(result: CallResult): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((c) => c.text ?? '').join('');
}

function succeeded<T>(result: CallResult, what: string): T {
  if (result.isError) throw new Error(`${what} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

export interface StartOptions {
  /** Options for node itself, before the CLI script (e.g. the leak suite's garbage-collection probe). */
  nodeArgs?: string[];
  /** Options for `mcp`, e.g. `['--max-sessions', '2']`. */
  cliArgs?: string[];
  /** Serve as nobody (uid 65534), with the checkout bound where nobody may read it (test/helpers/nobody.ts). */
  asNobody?: boolean;
}

export async function startServer(name: string, options: StartOptions = {}): Promise<ServerUnderTest> {
  const mcp = ['mcp', '--structured-output', ...unsandboxed(options.cliArgs ?? [])];
  const { command, args } = options.asNobody
    ? nodeAsNobody('dist/cli/index.js', mcp)
    : { command: process.execPath, args: [...(options.nodeArgs ?? []), CLI, ...mcp] };
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: ROOT,
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the server has no pid');
  const call = (tool: string, args: unknown) =>
    client.callTool({ name: tool, arguments: args as Record<string, unknown> }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
  return {
    client,
    pid,
    stderr: () => stderr,
    call,
    exec: async (args) =>
      succeeded<ExecResult>(await call('exec_command', args), `exec_command ${JSON.stringify(args.cmd)}`),
    write: async (sessionId, chars, extra = {}) =>
      succeeded<ExecResult>(
        await call('write_stdin', { session_id: sessionId, chars, ...extra }),
        `write_stdin ${sessionId}`,
      ),
    list: async () => succeeded<SessionListResult>(await call('list_sessions', {}), 'list_sessions').sessions,
    close: async () => {
      await client.close().catch(() => undefined);
      try {
        await vi.waitFor(
          () => {
            if (isRunning(pid)) throw new Error(`server ${pid} still running`);
          },
          { timeout: 10_000, interval: 50 },
        );
      } catch {
        killIfRunning({ pid, start: startTimeOf(pid) ?? '' });
      }
    },
  };
}

/** node options that load gc-probe.mjs into the server: `collectGarbage` then works on it. */
export const GC_PROBE_ARGS = ['--expose-gc', '--import', new URL('./gc-probe.mjs', import.meta.url).href];

/** Has a server started with GC_PROBE_ARGS run a full collection; answers with its heap and RSS right after. */
export async function collectGarbage(server: ServerUnderTest): Promise<{ heapUsedKb: number; rssKb: number }> {
  const reports = () => [...server.stderr().matchAll(/gc-probe rss=\d+ heapUsed=(\d+)\n/g)];
  const before = reports().length;
  process.kill(server.pid, 'SIGUSR2');
  await timeUntil(() => reports().length > before, 10_000);
  return { heapUsedKb: Math.round(Number(reports().at(-1)![1]) / 1024), rssKb: rssKb(server.pid) };
}

/** Keeps typing nothing into a tty session until `done` holds for everything it printed since `chars` was sent. */
export async function writeUntil(
  server: ServerUnderTest,
  sessionId: number,
  chars: string,
  done: (output: string) => boolean,
  timeoutMs = 60_000,
): Promise<{ output: string; replies: ExecResult[] }> {
  const until = Date.now() + timeoutMs;
  const replies = [await server.write(sessionId, chars, { yield_time_ms: 5_000 })];
  let output = replies[0]!.output;
  while (!done(output) && replies.at(-1)!.exit_code === undefined) {
    if (Date.now() > until)
      throw new Error(`session ${sessionId}: gave up waiting; output so far ${JSON.stringify(output)}`);
    const reply = await server.write(sessionId, '', { yield_time_ms: 5_000 });
    replies.push(reply);
    output += reply.output;
  }
  return { output, replies };
}

// --- /proc ---------------------------------------------------------------------------------------------------

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Alive and not a zombie. */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** Start time in clock ticks since boot: with pid_max at 32768 pids come round again, and this tells them apart. */
export function startTimeOf(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** A process as it was when first seen: the same pid later is the same process only with the same start time. */
export interface ProcessIdentity {
  pid: number;
  start: string;
}

export function identify(pid: number): ProcessIdentity {
  const start = startTimeOf(pid);
  if (start === undefined) throw new Error(`process ${pid} is not running`);
  return { pid, start };
}

export function survives(process: ProcessIdentity): boolean {
  return isRunning(process.pid) && startTimeOf(process.pid) === process.start;
}

/** Cleanup for a process a test caused to exist, should the code under test have failed to end it. */
export function killIfRunning(target: ProcessIdentity): void {
  if (!survives(target)) return;
  try {
    process.kill(target.pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/** Live (non-zombie) children of `pid`. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields && fields[1] === String(pid) && fields[0] !== 'Z') children.push(Number(name));
  }
  return children;
}

export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Pids of this machine's processes whose command line (see commandLineOf) is exactly `command`. */
export function processesRunning(command: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && commandLineOf(Number(name)) === command)
    .map(Number);
}

export function openFdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident set size in kB (VmRSS). */
export function rssKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

/** Polls `check` every `intervalMs` until it holds; returns how long that took, or throws after `timeoutMs`. */
export async function timeUntil(check: () => boolean, timeoutMs: number, intervalMs = 10): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (check()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

// Background grandchildren as a model starts them: a plain `&` job, a nohup'd one that ignores SIGHUP, an orphan
// whose parent subshell exited at once, and one that left the session with setsid (found by the UNIFIED_EXEC_TAG
// tag in its environment). The shell then execs a sleeper, so the session leader itself never exits.
export const BACKGROUND_HOLDER = [
  'sleep 1000 & echo BG=$!',
  'nohup sleep 1001 >/dev/null 2>&1 & echo BG=$!',
  '(sleep 1003 & echo BG=$!)',
  'setsid sleep 1004 & echo BG=$!',
  'exec sleep 1002',
].join('; ');
