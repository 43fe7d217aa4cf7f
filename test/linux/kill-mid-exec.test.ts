import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { environmentState, killSessionTree, processTableScans, readProcStat } from '../../src/linux/process-tree.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../../src/linux/process-tag.js';
import { PATIENT, isAlive, killIfAlive, printedPid, waitUntilGone } from '../helpers/processes.js';

// An escapee (setsid'd, orphaned) is known by the session tag in its environment. In the middle of an exec its
// environment reads empty for a few microseconds: a kill that looks at it then must look again, not take the tree
// for gone. The empty reads are made to come here, three of them, at a real escapee that runs (as one in an exec
// does); what the kill then does is real.

/** pid → how many more reads of its tag are to come back empty. */
const emptyReads = new Map<number, number>();

vi.mock('../../src/linux/process-tag.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/linux/process-tag.js')>();
  return {
    ...actual,
    readProcessTag: (pid: number) => {
      const left = emptyReads.get(pid) ?? 0;
      if (left === 0) return actual.readProcessTag(pid);
      emptyReads.set(pid, left - 1);
      return '';
    },
  };
});

const started: number[] = [];
afterEach(() => {
  emptyReads.clear();
  for (const pid of started.splice(0)) killIfAlive(pid);
});

/**
 * Starts a tagged session whose leader leaves behind a busy escapee (with no environment at all: `env -i`), and waits
 * for the leader to exit.
 */
async function escapee(tag: string, { envless = false } = {}): Promise<{ leader: number; escaped: number }> {
  const loop = `${envless ? 'env -i ' : ''}/bin/sh -c "while :; do :; done"`;
  const child = spawn('/bin/sh', ['-c', `setsid ${loop} & echo PID=$!`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: '/usr/bin:/bin', [PROCESS_TAG_VAR]: tag },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await vi.waitFor(() => expect(output).toMatch(/PID=\d+/), PATIENT);
  const escaped = printedPid(output);
  started.push(escaped);
  await exited;
  await vi.waitFor(() => expect(readProcStat(escaped)?.sid).toBe(escaped), PATIENT);
  return { leader: child.pid!, escaped };
}

describe.skipIf(process.platform !== 'linux')('killSessionTree and an escapee in an exec', () => {
  it('looks again at a running escapee whose environment reads empty, finds its tag and ends it', async () => {
    const tag = newProcessTag();
    const { leader, escaped } = await escapee(tag);
    expect(readProcStat(escaped)?.state).toBe('R');
    emptyReads.set(escaped, 3);

    await killSessionTree(leader, { tag, graceMs: 100 });

    expect(emptyReads.get(escaped)).toBe(0);
    await waitUntilGone(escaped, 2_000);
  });

  it('leaves a process that is not the session’s alone, after looking again', async () => {
    const { leader, escaped } = await escapee(newProcessTag());
    emptyReads.set(escaped, 3);

    await killSessionTree(leader, { tag: newProcessTag(), graceMs: 100 });

    expect(emptyReads.get(escaped)).toBe(0);
    expect(isAlive(escaped)).toBe(true);
  });

  it('looks only once more at a busy process that has no environment at all', async () => {
    const { leader, escaped } = await escapee(newProcessTag(), { envless: true });
    await vi.waitFor(() => expect(environmentState(escaped)).toBe('empty, running'), PATIENT);
    const before = processTableScans();

    await killSessionTree(leader, { tag: newProcessTag(), graceMs: 100 });

    // Its look and one more; a process elsewhere caught in an exec may add a few. Twenty looks at it would be 21.
    expect(processTableScans() - before).toBeLessThanOrEqual(5);
    expect(isAlive(escaped)).toBe(true);
  });

  it('looks once more in all, not once for each, at many such processes (a model could start them to slow every kill)', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => escapee(newProcessTag(), { envless: true })));
    for (const { escaped } of made)
      await vi.waitFor(() => expect(environmentState(escaped)).toBe('empty, running'), PATIENT);
    const before = processTableScans();

    await killSessionTree(made[0]!.leader, { tag: newProcessTag(), graceMs: 100 });

    expect(processTableScans() - before).toBeLessThanOrEqual(5);
    for (const { escaped } of made) expect(isAlive(escaped)).toBe(true);
  });
});
