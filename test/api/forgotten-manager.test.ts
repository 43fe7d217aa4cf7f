import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { titled } from '../helpers/needs.js';
import { PATIENT, isAlive, killIfAlive } from '../helpers/processes.js';
import { NO_SANDBOX } from '../sandbox/sandbox-helpers.js';

// A program that uses the library and forgets shutdown() must still end by itself once its commands have, and
// `await using` must end a manager's sessions with its scope. Each case is a real node process running the built
// library (dist/, built by the suite's global setup), the way an application runs it.

const LIBRARY = pathToFileURL(new URL('../../dist/lib/index.js', import.meta.url).pathname).href;
const dir = mkdtempSync(join(tmpdir(), 'forgotten-manager-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `source` (TypeScript, compiled as a consumer's would be: `await using` lowered) in its own node process. */
async function runProgram(name: string, source: string, timeoutMs = 30_000) {
  const { outputText } = ts.transpileModule(source.replaceAll('LIBRARY', LIBRARY), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, outputText);
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), timeoutMs)));
  const code = await Promise.race([exited, stuck]);
  clearTimeout(timer);
  if (code === 'stuck') child.kill('SIGKILL');
  const pids = [...stdout.matchAll(/PID=(\d+)/g)].map((match) => Number(match[1]));
  return { code, stdout, stderr, pids };
}

/** Every process the program printed is gone (an unreaped zombie counts as gone); ends any left, to leave nothing. */
async function expectGone(pids: number[]): Promise<void> {
  try {
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), PATIENT);
  } finally {
    pids.forEach(killIfAlive);
  }
}

describe('a manager a program forgets to shut down', () => {
  it('lets the program exit once its command has exited', async () => {
    const run = await runProgram(
      'plain',
      `import { UnifiedExecManager } from 'LIBRARY';
       const manager = new UnifiedExecManager({ defaultShell: '/bin/bash' });
       const reply = await manager.execCommand({ command: 'echo PID=$$', login: false, tty: true });
       console.log(reply.state, reply.output.trim());`,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^exited PID=\d+$/m);
    await expectGone(run.pids);
  });

  it('waits for a session that still runs, and exits once its program has', async () => {
    const run = await runProgram(
      'live-session',
      `import { UnifiedExecManager } from 'LIBRARY';
       const manager = new UnifiedExecManager({ defaultShell: '/bin/bash' });
       const reply = await manager.execCommand({ command: 'echo PID=$$; sleep 1', login: false, yieldTimeMs: 250 });
       console.log(reply.state, reply.output.trim());`,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^running PID=\d+$/m);
    await expectGone(run.pids);
  });

  it.skipIf(NO_SANDBOX !== undefined)(
    titled('lets the program exit when its sandbox has a domain allowlist (the proxy waits unreferenced)', NO_SANDBOX),
    async () => {
      const run = await runProgram(
        'allowlist',
        `import { UnifiedExecManager } from 'LIBRARY';
         const manager = new UnifiedExecManager({
           defaultShell: '/bin/bash', cwd: '${dir}', sandbox: 'workspace-write', allowedDomains: ['localhost'],
         });
         const reply = await manager.execCommand({ command: 'echo inside', login: false });
         console.log(reply.state, reply.exitCode, reply.output.trim());`,
      );
      // (No pids here: the sandbox's are of its own pid namespace.)
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^exited 0 inside$/m);
    },
  );
});

describe('await using', () => {
  it('shuts the manager down with its scope: its sessions end, background jobs too, and the program exits', async () => {
    const run = await runProgram(
      'await-using',
      `import { UnifiedExecManager } from 'LIBRARY';
       async function work() {
         await using manager = new UnifiedExecManager({ defaultShell: '/bin/bash' });
         const reply = await manager.execCommand({
           command: 'sleep 1000 & echo PID=$!; echo PID=$$; sleep 1000', login: false, yieldTimeMs: 1000,
         });
         console.log(reply.output.trim());
         console.log(reply.state, manager.size);
         return manager;
       }
       const manager = await work();
       console.log('after', manager.size);
       await manager.execCommand({ command: 'true' }).catch((error) => console.log(error.code));`,
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^running 1\nafter 0\nSHUT_DOWN$/m);
    expect(run.pids).toHaveLength(2);
    await expectGone(run.pids);
  });
});
