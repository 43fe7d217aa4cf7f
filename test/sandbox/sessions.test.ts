import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exec } from '../../src/index.js';
import { BASH, INTERACTIVE_BASH, useManagers } from '../helpers/manager.js';
import { childrenOf, isRunning } from '../reliability/harness.js';
import { NO_SANDBOX, sandboxPolicy, useWorkspace } from './sandbox-helpers.js';
import { titled } from '../helpers/needs.js';

/** Every descendant of `pid`, by parent links on the host. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const child of childrenOf(pid)) out.push(child, ...descendants(child));
  return out;
}

describe.skipIf(NO_SANDBOX !== undefined)(titled('sessions inside the sandbox', NO_SANDBOX), () => {
  const manager = useManagers();
  const ws = useWorkspace();
  const sandboxed = () => manager({ cwd: ws.dir, sandbox: 'workspace-write' });

  it('cannot see the server, its environment, or the processes of other sessions', async () => {
    // The test process (the server here) started with VITEST_* variables; sessions are told not to inherit them,
    // so they can show up only by reading the server's own environment.
    expect(readFileSync('/proc/self/environ', 'utf8')).toContain('VITEST');
    const env = { exclude: ['VITEST*'] };
    const probe = `echo ppid=$PPID; cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\\0' '\\n' | grep -c VITEST; ps -eo args | grep -c '^sleep 300'; ls /proc | grep -c '^[0-9]'`;
    const open = await manager({ cwd: ws.dir, env }).execCommand({ command: probe, ...BASH });
    expect(Number(open.output.split('\n')[1])).toBeGreaterThan(0); // the contrast: no sandbox, the server's environment is there

    const m = manager({ cwd: ws.dir, env, sandbox: 'workspace-write' });
    const other = await m.execCommand({ command: 'exec sleep 300', ...BASH, tty: true, yieldTimeMs: 300 });
    expect(other.sessionId).toBeDefined();
    const r = await m.execCommand({ command: probe, ...BASH });
    const [ppid, envHits, sleeps, pids] = r.output.trim().split('\n');
    expect(ppid).toBe('ppid=1'); // its parent is the sandbox's own init, not the server
    expect(envHits).toBe('0');
    expect(sleeps).toBe('0');
    expect(Number(pids)).toBeLessThan(8);
  });

  it('takes no words for a denial: a failure that only talks about the sandbox is reported as it is', async () => {
    const m = sandboxed();
    const r = await m.execCommand({
      command: "echo 'sandbox: permission denied (EACCES), access denied by policy' >&2; exit 1",
      ...BASH,
    });
    expect(r.exitCode).toBe(1);
    expect(r.sandboxDenial).toBeUndefined();
    expect(r.warnings).toEqual([]);
    const real = await m.execCommand({ command: 'echo x > /etc/unified-exec-probe', ...BASH });
    // The whole reply on failure: a denial missed because the sandbox failed to start reads differently from one lost.
    expect(real.sandboxDenial, JSON.stringify(real)).toEqual({
      kind: 'write',
      evidence: '/bin/bash: line 1: /etc/unified-exec-probe: Read-only file system',
    });
  });

  it('knows less, which reads the terminal as /dev/tty (bubblewrap shows it as /dev/console), waiting for a key', async () => {
    const m = sandboxed();
    const started = await m.execCommand({ command: 'less /etc/hostname', ...BASH, tty: true, yieldTimeMs: 10_000 });
    expect(started.state).toBe('waiting_for_input');
    expect(started.wallTimeSeconds).toBeLessThan(5);
    const quit = await m.writeStdin({ sessionId: started.sessionId!, chars: 'q', yieldTimeMs: 10_000 });
    expect(quit.exitCode).toBe(0);
  });

  it('input-wait and password detection work inside the sandbox', async () => {
    const m = sandboxed();
    const started = await m.execCommand({ command: 'python3 -q -i', ...BASH, tty: true, yieldTimeMs: 10_000 });
    expect(started.state).toBe('waiting_for_input');
    expect(started.wallTimeSeconds).toBeLessThan(5);
    const answer = await m.writeStdin({ sessionId: started.sessionId!, chars: 'print(6*7)\n', yieldTimeMs: 10_000 });
    expect(answer.output).toContain('42');
    expect(answer.state).toBe('waiting_for_input');
    const secret = await m.execCommand({
      command: `${INTERACTIVE_BASH} -c 'read -s -p "Password: " pw; echo got-$pw'`,
      ...BASH,
      tty: true,
      yieldTimeMs: 10_000,
    });
    expect(secret.secretPrompt).toBe(true);
    const after = await m.writeStdin({ sessionId: secret.sessionId!, chars: 'hunter2\n', yieldTimeMs: 5_000 });
    expect(after.output).toContain('got-hunter2');
  });

  it('loses no output at exit, on a terminal and on pipes', async () => {
    const m = sandboxed();
    for (const tty of [true, false]) {
      const r = await m.execCommand({ command: 'seq 1 200000 | tail -c 2000000', ...BASH, tty, yieldTimeMs: 20_000 });
      expect(r.exitCode).toBe(0);
      expect(r.originalTokenCount * 4).toBeGreaterThanOrEqual(1_288_895);
      expect(r.output.trimEnd().endsWith('200000')).toBe(true);
    }
  });

  it('close_session ends the whole sandboxed tree, background jobs and escapees too', async () => {
    const m = sandboxed();
    const r = await m.execCommand({
      command: 'sleep 300 & setsid sleep 301 & sleep 302',
      ...BASH,
      tty: true,
      yieldTimeMs: 500,
    });
    const leader = m.listSessions()[0]!.pid!;
    const tree = descendants(leader);
    expect(tree.length).toBeGreaterThanOrEqual(4); // bwrap's init, bash and the sleeps
    await m.closeSession(r.sessionId!);
    for (const pid of [leader, ...tree]) expect(isRunning(pid)).toBe(false);
  });

  it('one-shot exec() runs in the sandbox, and its timeout kills the whole tree', async () => {
    const denied = await exec({ command: ['bash', '-c', 'echo x > /root/nope'], sandbox: policy(ws.dir) });
    expect(denied.exitCode).toBe(1);
    expect(denied.stderr).toContain('Read-only file system');
    const name = `ue-probe-${process.pid}-${Date.now()}`;
    const timedOut = await exec({
      command: `(exec -a ${name} sleep 60) & exec -a ${name} sleep 60`,
      shell: '/bin/bash',
      cwd: ws.dir,
      timeoutMs: 500,
      sandbox: policy(ws.dir),
    });
    expect(timedOut.exitCode).toBe(124);
    expect(timedOut.aggregatedOutput).toMatch(/^command timed out after 5\d\d milliseconds/);
    expect(processesNamed(name)).toEqual([]);
  });
});

/** Host pids whose argv[0] is `name`. */
function processesNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const policy = (workspace: string) => sandboxPolicy({ workspace });
