// The Landlock launcher started ahead of its command (src/spawn/launcher-standby.ts, native/sandbox-exec.c's
// --standby): a command on pipes after the first runs in the launcher that waited, as it would have run started
// the usual way (its folder, environment, stdin, sandbox), and the launcher that waits outlives nothing.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { ExecProcess, ExitInfo } from '../../src/index.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import { SandboxLauncher } from '../../src/sandbox/launcher.js';
import { PATIENT, isAlive, killIfAlive, waitUntilGone } from '../helpers/processes.js';
import { NO_LANDLOCK, sandboxPolicy } from './sandbox-helpers.js';

const cleanup: string[] = [];
const executors: LocalExecutor[] = [];
afterEach(async () => {
  await Promise.all(executors.splice(0).map((executor) => executor.close()));
});
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
});

const folder = (prefix: string) => {
  const dir = mkdtempSync(`/var/tmp/${prefix}`);
  cleanup.push(dir);
  return dir;
};

/** Our children that are launchers waiting in standby, read from /proc (not through the code under test). */
function waitingLaunchers(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        const argv = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
        return ppid === process.pid && argv[1] === '--standby' && isAlive(Number(name)) ? [Number(name)] : [];
      } catch {
        return [];
      }
    });
}

/** The launcher waiting once the executor has started one (after its first command). */
async function waitingLauncher(): Promise<number> {
  let pid = 0;
  await vi.waitFor(() => {
    const [first, ...more] = waitingLaunchers();
    expect(more).toEqual([]);
    expect(first).toBeDefined();
    pid = first!;
  }, PATIENT);
  return pid;
}

async function run(proc: ExecProcess, input?: string): Promise<{ info: ExitInfo; output: string }> {
  let output = '';
  proc.onData((chunk) => (output += chunk.toString()));
  const exited = new Promise<ExitInfo>((resolve) => proc.onExit(resolve));
  if (input !== undefined) {
    await proc.write(input);
    proc.closeInput?.();
  }
  const info = await exited;
  await proc.outputDone;
  return { info, output };
}

describe.skipIf(NO_LANDLOCK)('a Landlock launcher started ahead of its command', () => {
  const workspace = folder('ue-standby-ws-');
  const outside = folder('ue-standby-outside-');
  const policy = sandboxPolicy({ workspace });
  const env = { PATH: '/usr/bin:/bin', HOME: workspace, GREETING: 'hello there' };

  function executor(): LocalExecutor {
    const made = new LocalExecutor({ watchdog: false, sandbox: new SandboxLauncher(undefined, 'landlock') });
    executors.push(made);
    return made;
  }
  const bash = (script: string, more: { pipeStdin?: boolean; env?: Record<string, string> } = {}) => ({
    argv: ['/bin/bash', '-c', script],
    cwd: workspace,
    env: more.env ?? env,
    tty: false,
    sandbox: policy,
    ...(more.pipeStdin ? { pipeStdin: true } : {}),
  });

  it('runs the next command on pipes, in its folder, with its environment, stdin from /dev/null, in the sandbox', async () => {
    const local = executor();
    expect((await run(await local.spawn(bash('true')))).info.exitCode).toBe(0);
    const waiting = await waitingLauncher();

    const script = [
      'pwd',
      'echo "greeting=$GREETING"',
      'echo "stdin=$(readlink /proc/self/fd/0)"',
      'echo "tag=$UNIFIED_EXEC_TAG"',
      'echo made > made.txt && echo "made=$(cat made.txt)"',
      `echo no > ${outside}/escaped.txt`,
      'exit 3',
    ].join('\n');
    const proc = await local.spawn(bash(script));
    expect(proc.pid).toBe(waiting);
    const { info, output } = await run(proc);
    expect(info.exitCode).toBe(3);
    expect(output).toContain(`${workspace}\n`);
    expect(output).toContain('greeting=hello there\n');
    expect(output).toContain('stdin=/dev/null\n');
    expect(output).toContain(`tag=${(proc as ExecProcess & { tag: string }).tag}\n`);
    expect(output).toContain('made=made\n');
    expect(output).toMatch(/escaped\.txt: Permission denied/);
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    await waitUntilGone(waiting);
  });

  it('runs the next command on a terminal too: its own, of its size and modes, as its controlling terminal', async () => {
    const local = executor();
    const onTerminal = (script: string) => ({ ...bash(script), tty: true, cols: 101, rows: 31 });
    const script = 'tty; stty size; stty -a; echo "pgid=$(ps -o pgid= -p $$) tpgid=$(ps -o tpgid= -p $$)"; exit 4';
    // The first starts the usual way (node-pty's fork), the second in the launcher that waited: the same terminal.
    const cold = await run(await local.spawn(onTerminal(script)));
    const waiting = await waitingLauncher();
    const proc = await local.spawn(onTerminal(script));
    expect(proc.pid).toBe(waiting);
    const warm = await run(proc);
    expect(warm.info.exitCode).toBe(4);
    expect(warm.output).toMatch(/^\/dev\/pts\/\d+\r\n31 101\r\n/);
    const [, pgid, tpgid] = /pgid= *(\d+) tpgid= *(\d+)/.exec(warm.output) ?? [];
    expect(Number(pgid)).toBe(waiting); // its process group leads the terminal's foreground
    expect(tpgid).toBe(pgid);
    const modes = (output: string) => output.slice(output.indexOf('speed'), output.indexOf('pgid='));
    expect(modes(warm.output)).toBe(modes(cold.output));
    expect(modes(warm.output)).toContain('iutf8');
  });

  it('hands the command its stdin when asked to', async () => {
    const local = executor();
    await run(await local.spawn(bash('true')));
    const waiting = await waitingLauncher();
    const proc = await local.spawn(bash('read -r line; echo "got <$line>"', { pipeStdin: true }));
    expect(proc.pid).toBe(waiting);
    const { info, output } = await run(proc, 'typed in\n');
    expect(info.exitCode).toBe(0);
    expect(output).toBe('got <typed in>\n');
  });

  it('starts a command the usual way when the launcher that waited was killed', async () => {
    const local = executor();
    await run(await local.spawn(bash('true')));
    const waiting = await waitingLauncher();
    process.kill(waiting, 'SIGKILL');
    await waitUntilGone(waiting);
    const proc = await local.spawn(bash('echo "greeting=$GREETING"'));
    expect(proc.pid).not.toBe(waiting);
    const { info, output } = await run(proc);
    expect(info.exitCode).toBe(0);
    expect(output).toBe('greeting=hello there\n');
  });

  it('starts a command the usual way when the launcher that waited was stopped, and ends that one', async () => {
    const local = executor();
    await run(await local.spawn(bash('true')));
    const waiting = await waitingLauncher();
    process.kill(waiting, 'SIGSTOP');
    try {
      await vi.waitFor(() => expect(readFileSync(`/proc/${waiting}/stat`, 'latin1')).toMatch(/\) T /), PATIENT);
      const proc = await local.spawn(bash('echo "greeting=$GREETING"'));
      expect(proc.pid).not.toBe(waiting);
      const { info, output } = await run(proc);
      expect(info.exitCode).toBe(0);
      expect(output).toBe('greeting=hello there\n');
      await waitUntilGone(waiting);
    } finally {
      killIfAlive(waiting);
    }
  });

  it('refuses a NUL byte in the environment, and leaves the launcher it took no alive', async () => {
    const local = executor();
    await run(await local.spawn(bash('true')));
    const waiting = await waitingLauncher();
    await expect(local.spawn(bash('true', { env: { ...env, BAD: 'a\0b' } }))).rejects.toThrow(/NUL byte/);
    await waitUntilGone(waiting);
  });

  it('stops the launcher waiting when the executor closes', async () => {
    const local = executor();
    await run(await local.spawn(bash('true')));
    const waiting = await waitingLauncher();
    await local.close();
    await waitUntilGone(waiting);
    expect(waitingLaunchers()).toEqual([]);
  });

  /**
   * A node process of its own (the built package, as a user's program runs it: npm test builds it first) that runs
   * one command on the executor, never closing it, and prints `waiting=<pid>` for the launcher then waiting; with
   * `stay`, it then stays until killed.
   */
  function processWithWaitingLauncher(stay: boolean) {
    const dist = (file: string) => JSON.stringify(join(process.cwd(), 'dist', file));
    const script = `
      import { readFileSync, readdirSync } from 'node:fs';
      import { LocalExecutor } from ${dist('spawn/local-executor.js')};
      import { SandboxLauncher } from ${dist('sandbox/launcher.js')};
      const local = new LocalExecutor({ watchdog: false, sandbox: new SandboxLauncher(undefined, 'landlock') });
      const proc = await local.spawn({ argv: ['/bin/true'], cwd: ${JSON.stringify(workspace)}, env: {}, tty: false,
        sandbox: ${JSON.stringify(policy)} });
      const ours = () => readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).filter((n) => {
        try {
          const stat = readFileSync('/proc/' + n + '/stat', 'latin1');
          return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === String(process.pid) &&
            readFileSync('/proc/' + n + '/cmdline', 'latin1').includes('--standby');
        } catch { return false; }
      });
      proc.onExit(() => setTimeout(() => console.log('waiting=' + ours().join(',')), 200));
      ${stay ? 'setInterval(() => undefined, 1000);' : ''}
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const waiting = new Promise<number>((resolve, reject) => {
      let printed = '';
      child.stdout.on('data', (chunk) => {
        printed += chunk;
        const match = /^waiting=(\d+)\n$/.exec(printed);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', () => reject(new Error(`exited having printed ${JSON.stringify(printed)}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { child, waiting, exited };
  }

  it('keeps no process alive: a process that never closes its executor exits, and its waiting launcher with it', async () => {
    const { waiting, exited } = processWithWaitingLauncher(false);
    const pid = await waiting; // one was waiting, yet the process ends by itself
    try {
      expect(await exited).toBe(0);
      await waitUntilGone(pid);
    } finally {
      killIfAlive(pid);
    }
  });

  it('leaves no launcher waiting when its process is killed (SIGKILL: no exit handler runs)', async () => {
    const { child, waiting, exited } = processWithWaitingLauncher(true);
    const pid = await waiting;
    try {
      expect(isAlive(pid)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      await waitUntilGone(pid);
    } finally {
      killIfAlive(pid);
    }
  });
});
