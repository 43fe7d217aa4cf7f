import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { exec } from '../../src/index.js';
import { probeLandlock } from '../../src/sandbox/backend-probe.js';
import { makeProcessDir, stateRoot, sweepDeadProcessDirs } from '../../src/util/private-dir.js';
import { titled } from '../helpers/needs.js';

// A server killed with SIGKILL (or a test worker its runner ends) runs no exit handler: the folders it made in the
// private root (the Landlock launcher's options, a manager's shell snapshots) stayed there, in the runtime folder's
// memory, one set per process. Real processes here: one is killed, the next one to make such a folder removes its.

const DIST = resolve(import.meta.dirname, '../../dist');
const base = mkdtempSync(join(tmpdir(), 'ue-process-dirs-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(base, { recursive: true, force: true });
});

/** A node process running `code` (an ES module, with `dist` at hand), its first line of output, and the process. */
async function startChild(code: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, DIST },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('\n')) break;
  }
  return { child, line: out.split('\n')[0]! };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describe('makeProcessDir', () => {
  it("removes a killed process's folders of its prefix, and keeps a live process's", async () => {
    const make = (prefix: string) =>
      `const { makeProcessDir } = await import(process.env.DIST + '/util/private-dir.js');` +
      `console.log(JSON.stringify(${JSON.stringify(prefix)}.split(',').map((p) => makeProcessDir(p, ${JSON.stringify(base)}))));` +
      `setInterval(() => {}, 1000);`;
    const killed = await startChild(make('launch-,snapshots-'));
    const live = await startChild(make('launch-'));
    const [killedLaunch, killedSnapshots] = JSON.parse(killed.line) as string[];
    const [liveLaunch] = JSON.parse(live.line) as string[];
    expect(killedLaunch).toContain(`/launch-${killed.child.pid}-`);
    expect(existsSync(killedLaunch!)).toBe(true);
    await kill(killed.child);

    const mine = makeProcessDir('launch-', base);
    expect(mine).toContain(`/launch-${process.pid}-`);
    expect(existsSync(killedLaunch!)).toBe(false);
    expect(existsSync(liveLaunch!)).toBe(true);
    // Another prefix is swept when a folder of that prefix is made.
    expect(existsSync(killedSnapshots!)).toBe(true);
    expect(sweepDeadProcessDirs(base, 'snapshots-')).toEqual([killedSnapshots]);
    expect(existsSync(killedSnapshots!)).toBe(false);
    // Folders not named by a pid (ours of an earlier version, or anyone's) are left alone.
    const older = join(base, 'launch-Ab12Cd');
    mkdirSync(older);
    makeProcessDir('launch-', base);
    expect(existsSync(older)).toBe(true);
    expect(existsSync(mine)).toBe(true); // its own, made before
    await kill(live.child);
    expect(sweepDeadProcessDirs(base, 'launch-')).toEqual([liveLaunch]);
  });

  it('removes a link of that name, never what it points to', () => {
    const victim = mkdtempSync(join(base, 'victim-'));
    writeFileSync(join(victim, 'precious'), 'keep me');
    const link = join(base, 'proxy-999999999-planted');
    symlinkSync(victim, link);
    expect(sweepDeadProcessDirs(base, 'proxy-')).toEqual([link]);
    expect(existsSync(link)).toBe(false);
    expect(readFileSync(join(victim, 'precious'), 'utf8')).toBe('keep me');
  });

  const landlock = probeLandlock();
  const skip = landlock.ok ? undefined : `the Landlock backend cannot run here: ${landlock.reason}`;
  it.skipIf(skip !== undefined && !process.env.CI)(
    titled(
      "a Landlock sandbox's options folder, left by a killed process, is gone after the next one's first sandbox",
      skip,
    ),
    async () => {
      const sandboxed = (cwd: string) => ({
        command: ['/bin/sh', '-c', 'echo in'],
        cwd,
        sandbox: { mode: 'workspace-write', network: 'off', allowedDomains: [], workspace: cwd, writableRoots: [] },
        sandboxBackend: 'landlock',
      });
      const ws = mkdtempSync(join(base, 'ws-'));
      const { child, line } = await startChild(
        `const { exec } = await import(process.env.DIST + '/index.js');` +
          `const { stateRoot } = await import(process.env.DIST + '/util/private-dir.js');` +
          `const out = await exec(${JSON.stringify(sandboxed(ws))});` +
          `const mine = (await import('node:fs')).readdirSync(stateRoot()).filter((n) => n.startsWith('launch-' + process.pid + '-'));` +
          `console.log(JSON.stringify({ stdout: out.stdout, mine }));` +
          `setInterval(() => {}, 1000);`,
      );
      const { stdout, mine } = JSON.parse(line) as { stdout: string; mine: string[] };
      expect(stdout).toBe('in\n');
      expect(mine).toHaveLength(1);
      const leftover = join(stateRoot(), mine[0]!);
      expect(existsSync(leftover)).toBe(true);
      await kill(child);
      expect(existsSync(leftover)).toBe(true); // no exit handler ran

      // This process's first Landlock sandbox (the launcher is one per process and backend: none made here before).
      const out = await exec(sandboxed(ws) as Parameters<typeof exec>[0]);
      expect(out.stdout).toBe('in\n');
      expect(existsSync(leftover)).toBe(false);
    },
  );
});
