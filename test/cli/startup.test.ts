// What the CLI loads and does before it answers: `--version` loads nothing but itself, and `mcp` answers initialize
// and tools/list without loading the code of containers, exec-servers, the live view or the terminal emulator, and
// without reading the login profile. A record of what ran (every module the process loaded, in order, and profiles
// that leave a mark when read), not a wall time.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, cleanEnv, runToEnd } from '../mcp/cli-process.js';

const RECORDER = join(ROOT, 'test/fixtures/record-loads.mjs');
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A folder for one run: the load log, and a home whose every profile leaves a mark when a shell reads it. */
function runDir(): { log: string; home: string; mark: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ue-startup-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, 'home');
  const mark = join(dir, 'profile-read');
  mkdirSync(home);
  for (const profile of ['.bash_profile', '.bash_login', '.profile', '.bashrc'])
    writeFileSync(join(home, profile), `echo ${profile} >> ${mark}\n`);
  return { log: join(dir, 'loads'), home, mark };
}

/**
 * What had loaded, file by file, builtins left out: a file of the bundled CLI (dist/cli, scripts/bundle.mjs) as
 * the modules it holds, by their paths inside the checkout (dist/…, node_modules/…), any other file as its own path.
 */
function loadedFiles(log: string): string[][] {
  const holds = JSON.parse(readFileSync(join(ROOT, 'dist/cli/bundle-meta.json'), 'utf8')) as Record<string, string[]>;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('node:') && !line.includes('/test/fixtures/record-loads'))
    .map((line) => line.replace(/^file:\/\//, '').replace(ROOT, ''))
    .map((path) => holds[path] ?? [path]);
}

/** Every module that had loaded, in the order of the files that hold them. */
const loaded = (log: string) => loadedFiles(log).flat();

/** What a server asked only initialize and tools/list has no use for (the usage text: only --help prints it). */
const DEFERRED =
  /^dist\/executors\/(docker|remote|exec-server-client)|^dist\/view\/|^dist\/cli\/(usage|flag-help)\.js$|node_modules\/(@xterm|ws|dockerode)\//;

/**
 * What loads with the manager (which starts loading once the server is connected), never before it: the sandbox's
 * launcher and the plans it makes (the server picks its backend with the probe alone), the approval form, and the
 * command analysis approvals decide with (the settings need only the policies' names).
 */
const WITH_MANAGER =
  /^dist\/sandbox\/(launcher|bwrap|domain-proxy|mask-registry)\.js$|^dist\/mcp\/elicit-approval\.js$|^dist\/approval\/(command-safety|shell-script)\.js$/;

/** `unified-exec mcp` with every load recorded, spoken to in JSON-RPC lines. */
function startMcp(run: ReturnType<typeof runDir>): {
  request(method: string, params?: object): Promise<{ result?: unknown; error?: unknown }>;
  notify(method: string): void;
} {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', RECORDER, CLI, 'mcp'], {
    cwd: ROOT,
    env: cleanEnv({ UE_LOAD_LOG: run.log, HOME: run.home, SHELL: '/bin/bash' }),
  });
  cleanups.push(() => child.kill('SIGKILL'));
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown; error?: unknown };
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return {
    request: (method, params = {}) =>
      new Promise((resolve) => {
        waiting.set(++id, resolve);
        send({ id, method, params });
      }),
    notify: (method) => send({ method }),
  };
}

describe('start-up', () => {
  it('--version loads nothing but the entry and the version', async () => {
    const run = runDir();
    const result = await runToEnd(process.execPath, ['--import', RECORDER, CLI, '--version'], {
      env: cleanEnv({ UE_LOAD_LOG: run.log }),
    });
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(loaded(run.log)).toEqual(['dist/cli/index.js', 'dist/cli/version.js']);
  });

  it('mcp answers initialize and tools/list before loading what waits, and reads no profile before it is initialized', async () => {
    const run = runDir();
    const server = startMcp(run);
    const initialized = await server.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'startup-test', version: '1' },
    });
    expect(initialized.result).toMatchObject({ serverInfo: { name: 'unified-exec' } });
    const atInitialize = loaded(run.log);
    // The record works: the server's own modules are in it.
    expect(atInitialize).toContain('dist/mcp/server.js');
    expect(atInitialize.filter((path) => DEFERRED.test(path))).toEqual([]);
    expect(existsSync(run.mark)).toBe(false);
    const tools = (await server.request('tools/list')) as { result: { tools: Array<{ name: string }> } };
    expect(tools.result.tools.map((tool) => tool.name)).toContain('exec_command');
    expect(loaded(run.log).filter((path) => DEFERRED.test(path))).toEqual([]);
    expect(existsSync(run.mark)).toBe(false);

    // Used, each loads: a full-screen program's reply is drawn by the emulator (so the record sees require()d modules).
    server.notify('notifications/initialized');
    const call = (await server.request('tools/call', {
      name: 'exec_command',
      arguments: { cmd: "printf '\\033[?1049hstarted'; sleep 3", tty: true, login: false, yield_time_ms: 1_000 },
    })) as { result: { content: Array<{ text: string }> } };
    expect(call.result.content[0]!.text).toContain('started');
    expect(loaded(run.log).filter((path) => path.includes('node_modules/@xterm/'))).not.toEqual([]);
    // With it: in the file that holds the manager, or one loaded after it.
    const files = loadedFiles(run.log);
    const managerAt = files.findIndex((modules) => modules.includes('dist/manager/manager.js'));
    expect(managerAt).toBeGreaterThan(0);
    expect(
      files
        .slice(0, managerAt)
        .flat()
        .filter((path) => WITH_MANAGER.test(path)),
    ).toEqual([]);
    expect(
      files
        .slice(managerAt)
        .flat()
        .filter((path) => WITH_MANAGER.test(path)),
    ).not.toEqual([]);
  }, 60_000);
});
