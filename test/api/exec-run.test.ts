import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EXEC_OUTPUT_MAX_BYTES } from '../../src/manager/one-shot.js';
import { exec } from '../../src/index.js';
import { PATIENT, isAlive, killIfAlive } from '../helpers/processes.js';
import { rejection } from '../helpers/manager.js';

// exec() with real processes: an abort ends the whole tree as a timeout does, and output past the cap keeps its
// beginning and its end with the gap marked, as a session's does.

const BASH = { shell: '/bin/bash', login: false } as const;

describe('exec signal', () => {
  it('on abort kills the whole tree, background jobs too, and rejects with CANCELLED once it is gone', async () => {
    const pids: number[] = [];
    const controller = new AbortController();
    const started = performance.now();
    const call = exec({
      ...BASH,
      command: 'sleep 60 & echo PID=$!; echo PID=$$; sleep 60',
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: (text) => {
        for (const match of text.matchAll(/PID=(\d+)/g)) pids.push(Number(match[1]));
        if (pids.length === 2) controller.abort(new Error('the user gave up'));
      },
    });
    const error = await rejection(call, 'CANCELLED');
    expect(error.message).toBe('exec was aborted by its signal; the command and every process it started were killed');
    expect((error.cause as Error).message).toBe('the user gave up');
    expect(performance.now() - started).toBeLessThan(15_000);
    try {
      expect(pids).toHaveLength(2);
      // The tree is ended before the call rejects; the waitFor only lets an unreaped zombie be reaped.
      await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), PATIENT);
    } finally {
      pids.forEach(killIfAlive);
    }
  });

  it('starts nothing when the signal is already aborted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exec-aborted-'));
    try {
      const controller = new AbortController();
      controller.abort();
      const call = exec({ command: ['touch', join(dir, 'ran')], signal: controller.signal });
      expect((await rejection(call, 'CANCELLED')).cause).toBe(controller.signal.reason);
      expect(existsSync(join(dir, 'ran'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves a call whose signal never fires as it was', async () => {
    const result = await exec({ ...BASH, command: 'echo ok', signal: new AbortController().signal });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ok\n', timedOut: false });
  });
});

describe('exec output over the cap', () => {
  it('keeps the first and last half MiB of each stream, marks the gap and says it was truncated', async () => {
    const result = await exec({
      ...BASH,
      command: 'echo FIRST; head -c 3000000 /dev/zero | tr "\\0" x; echo; echo LAST; echo ERR >&2',
    });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    const half = EXEC_OUTPUT_MAX_BYTES / 2;
    const printed = 'FIRST\n'.length + 3_000_000 + '\nLAST\n'.length;
    const marker = `\n... ${printed - EXEC_OUTPUT_MAX_BYTES} bytes omitted ...\n`;
    expect(result.stdout.startsWith('FIRST\nxxx')).toBe(true);
    expect(result.stdout.endsWith('xxx\nLAST\n')).toBe(true);
    expect(result.stdout.slice(half, half + marker.length)).toBe(marker);
    expect(result.stdout.length).toBe(EXEC_OUTPUT_MAX_BYTES + marker.length);
    expect(result.stderr).toBe('ERR\n');
    expect(result.aggregatedOutput).toBe(result.stdout + result.stderr);
  });

  it('says nothing was truncated when everything fits', async () => {
    const result = await exec({ ...BASH, command: 'head -c 1048576 /dev/zero | tr "\\0" y' });
    expect(result).toMatchObject({ exitCode: 0, truncated: false });
    expect(result.stdout).toBe('y'.repeat(EXEC_OUTPUT_MAX_BYTES));
  });
});
