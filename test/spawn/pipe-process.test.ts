import { describe, expect, it, vi } from 'vitest';
import { PipeProcess } from '../../src/spawn/pipe-process.js';
import { buildEnv } from '../../src/spawn/env.js';
import { PATIENT, busyWait, isAlive, printedPid, waitUntilGone } from '../helpers/processes.js';
import { useProcesses } from '../helpers/spawn.js';

const spawn = useProcesses();

describe('PipeProcess', () => {
  it('captures both stdout and stderr', async () => {
    const { exited } = spawn.pipes('echo to-stdout; echo to-stderr >&2');
    const { output } = await exited;
    expect(output).toContain('to-stdout\n');
    expect(output).toContain('to-stderr\n');
  });

  it('reports the exit code', async () => {
    const { proc, exited } = spawn.pipes('exit 17');
    expect((await exited).info).toEqual({ exitCode: 17 });
    expect(proc.exitInfo).toEqual({ exitCode: 17 });
  });

  it('reports death by SIGKILL as 137', async () => {
    const { exited } = spawn.pipes('kill -9 $$');
    expect((await exited).info).toEqual({ exitCode: 137, signal: 'SIGKILL' });
  });

  it('gives the program /dev/null as stdin, so readers of stdin never hang', async () => {
    const { exited } = spawn.pipes('cat; echo "read-done"; [ -t 0 ] && echo tty || echo not-a-tty');
    expect((await exited).output).toBe('read-done\nnot-a-tty\n');
  });

  it('rejects a write, because stdin is closed', async () => {
    const { proc } = spawn.pipes('sleep 5');
    await expect(proc.write('hello\n')).rejects.toThrow(/stdin is closed/);
    expect(proc.tty).toBe(false);
  });

  it('fires onExit only after every byte of a 1 MB burst reached a slow consumer', async () => {
    const proc = new PipeProcess({
      argv: ['/bin/bash', '-c', "head -c 1000000 /dev/zero | tr '\\0' a"],
      cwd: process.cwd(),
      env: buildEnv(),
      tty: false,
    });
    let bytes = 0;
    let onlyA = true;
    proc.onData((chunk) => {
      busyWait(1);
      bytes += chunk.length;
      if (chunk.some((byte) => byte !== 0x61)) onlyA = false;
    });
    const atExit = await new Promise<number>((resolve) => proc.onExit(() => resolve(bytes)));
    await proc.terminate();
    expect({ atExit, onlyA }).toEqual({ atExit: 1_000_000, onlyA: true });
  });

  it('runs in its own session, so terminate() ends a background grandchild too', async () => {
    const { proc, output } = spawn.pipes('sleep 1000 & echo PID=$!; wait');
    await vi.waitFor(() => expect(output()).toMatch(/PID=\d+/), PATIENT);
    const grandchild = printedPid(output());
    expect(isAlive(grandchild)).toBe(true);
    await proc.terminate();
    await waitUntilGone(grandchild, 2_000);
    await waitUntilGone(proc.pid, 2_000);
  });
});
