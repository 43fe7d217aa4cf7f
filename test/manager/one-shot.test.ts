import { describe, expect, it, vi } from 'vitest';
import { UnifiedExecError, exec } from '../../src/index.js';
import { EXEC_OUTPUT_MAX_BYTES, aggregateOutput } from '../../src/manager/one-shot.js';
import { useManagers } from '../helpers/manager.js';
import { isAlive, printedPid } from '../helpers/processes.js';

const newManager = useManagers();

const bytes = (text: string) => Buffer.from(text);

describe('aggregateOutput (Codex rule)', () => {
  it('keeps stdout then stderr whole when they fit', () => {
    expect(aggregateOutput(bytes('out'), bytes('err'), 6).toString()).toBe('outerr');
  });

  it('gives stdout a third and stderr the rest when both are long', () => {
    expect(aggregateOutput(bytes('a'.repeat(10)), bytes('b'.repeat(10)), 9).toString()).toBe('aaabbbbbb');
  });

  it('gives stdout what stderr does not use, and stderr what stdout does not use', () => {
    expect(aggregateOutput(bytes('a'.repeat(10)), bytes('bb'), 9).toString()).toBe('aaaaaaabb');
    expect(aggregateOutput(bytes('a'), bytes('b'.repeat(10)), 9).toString()).toBe('abbbbbbbb');
  });
});

describe('exec (one-shot)', () => {
  it('runs a command line to completion and separates stdout from stderr', async () => {
    const result = await exec({ command: 'echo out; echo err >&2; exit 3', shell: '/bin/bash' });
    expect(result).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    expect(result.aggregatedOutput).toBe('out\nerr\n');
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('runs an argv as is, with stdin closed', async () => {
    const result = await exec({ command: ['cat'] });
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await exec({ command: ['printf', '%s|', 'a b', '$HOME'] })).stdout).toBe('a b|$HOME|');
  });

  it('reports a death by signal as 128 + n', async () => {
    const result = await exec({ command: 'kill -9 $$', shell: '/bin/bash' });
    expect(result).toMatchObject({ exitCode: 137, signal: 'SIGKILL', timedOut: false });
  });

  it('on timeout answers 124, says so, and kills the whole tree, background jobs too', async () => {
    const started = performance.now();
    const result = await exec({ command: 'sleep 60 & echo PID=$!; sleep 60', shell: '/bin/bash', timeoutMs: 500 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result).toMatchObject({ exitCode: 124, timedOut: true });
    expect(result.aggregatedOutput).toMatch(/^command timed out after 5\d\d milliseconds\nPID=\d+\n$/);
    const background = printedPid(result.stdout);
    await vi.waitFor(() => expect(isAlive(background)).toBe(false), { timeout: 5_000 });
  });

  it('leaves nothing running after a command that exits with a background job holding its pipes', async () => {
    const started = performance.now();
    const result = await exec({ command: 'sleep 30 & echo PID=$!', shell: '/bin/bash' });
    expect(result.exitCode).toBe(0);
    // The job keeps the pipes open: they are read for 2 s at most, then it is ended with the call.
    expect(performance.now() - started).toBeLessThan(6_000);
    await vi.waitFor(() => expect(isAlive(printedPid(result.stdout))).toBe(false), { timeout: 5_000 });
  });

  it('reads a flood to its end without blocking the writer', async () => {
    const result = await exec({ command: 'head -c 3000000 /dev/zero | tr "\\0" x; echo END', shell: '/bin/bash' });
    expect(result).toMatchObject({ exitCode: 0, truncated: true });
    expect(result.stdout.endsWith('xEND\n')).toBe(true);
  });

  it('for the shell tool keeps the first MiB, as Codex does', async () => {
    const manager = newManager();
    const command = ['/bin/bash', '-c', 'head -c 3000000 /dev/zero | tr "\\0" x; echo END'];
    const { exitCode, output } = await manager.shell({ command });
    expect(exitCode).toBe(0);
    expect(output).toBe('x'.repeat(EXEC_OUTPUT_MAX_BYTES));
  });

  it('refuses bad input with a clear error', async () => {
    await expect(exec({ command: '' })).rejects.toThrow(UnifiedExecError);
    await expect(exec({ command: [] })).rejects.toThrow(/empty argv/);
    await expect(exec({ command: ['/no/such/program'] })).rejects.toThrow(/was not found/);
    await expect(exec({ command: 'true', cwd: '/no/such/dir' })).rejects.toThrow(/does not exist/);
    await expect(exec({ command: 'true', timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});
