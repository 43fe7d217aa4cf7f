// The spawn options the exec-server needs: stdin kept open on pipes, arg0, output told apart by stream, the end
// of output, and argv[0] looked up on the PATH of the child's environment.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipeProcess } from '../../src/spawn/pipe-process.js';
import { PtyProcess } from '../../src/spawn/pty-process.js';
import type { ExecProcess, SpawnOptions } from '../../src/spawn/types.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import { NO_SANDBOX, sandboxPolicy } from '../sandbox/sandbox-helpers.js';
import { titled } from '../helpers/needs.js';

const live: ExecProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((p) => p.terminate()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const base = { cwd: process.cwd(), env: { PATH: '/usr/bin:/bin' } };
const pipes = (options: Partial<SpawnOptions> & Pick<SpawnOptions, 'argv'>) => {
  const proc = new PipeProcess({ ...base, tty: false, ...options });
  live.push(proc);
  return proc;
};
const pty = async (options: Partial<SpawnOptions> & Pick<SpawnOptions, 'argv'>) => {
  const proc = await PtyProcess.start({ ...base, tty: true, ...options });
  live.push(proc);
  return proc;
};

/** Everything printed until the exit. */
function collect(proc: ExecProcess): Promise<string> {
  const chunks: Buffer[] = [];
  proc.onData((c) => chunks.push(c));
  return new Promise((resolve) => proc.onExit(() => resolve(Buffer.concat(chunks).toString())));
}

/** A directory holding an executable `name` that prints `text`. */
function program(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spawn-options-'));
  dirs.push(dir);
  writeFileSync(join(dir, name), `#!/bin/sh\necho ${text}\n`);
  chmodSync(join(dir, name), 0o755);
  return dir;
}

describe('PipeProcess spawn options', () => {
  it('keeps stdin open with pipeStdin, and writes reach the program in order', async () => {
    const proc = pipes({ argv: ['/bin/sh', '-c', 'head -n 2'], pipeStdin: true });
    const output = collect(proc);
    await proc.write('one\n');
    await proc.write(Buffer.from('two\n'));
    expect(await output).toBe('one\ntwo\n');
    await expect(proc.write('late\n')).rejects.toThrow();
  });

  it('still rejects writes without pipeStdin', async () => {
    const proc = pipes({ argv: ['/bin/sleep', '5'] });
    await expect(proc.write('x')).rejects.toThrow(/stdin is closed/);
  });

  it('names the program arg0 while running argv[0]', async () => {
    const proc = pipes({ argv: ['/bin/bash', '-c', 'echo "$0"'], arg0: 'custom-name' });
    expect(await collect(proc)).toBe('custom-name\n');
  });

  it('tells stdout from stderr in onData, and resolves outputDone at EOF of both', async () => {
    const proc = pipes({ argv: ['/bin/sh', '-c', 'echo out; echo err >&2'] });
    const seen: [string, string][] = [];
    proc.onData((chunk, stream) => seen.push([stream, chunk.toString()]));
    await proc.outputDone;
    expect(seen.sort()).toEqual([
      ['stderr', 'err\n'],
      ['stdout', 'out\n'],
    ]);
  });

  it('resolves outputDone only once a background child lets go of the pipes', async () => {
    const proc = pipes({ argv: ['/bin/sh', '-c', '(sleep 0.4; echo late) & echo early'] });
    const output = collect(proc);
    let done = false;
    void proc.outputDone.then(() => (done = true));
    expect(await output).toBe('early\n');
    expect(done).toBe(false);
    await proc.outputDone;
  });

  it('finds argv[0] on the PATH of the child environment, not ours, and throws ENOENT when absent', async () => {
    const dir = program('only-here', 'found-it');
    expect(await collect(pipes({ argv: ['only-here'], env: { PATH: dir } }))).toBe('found-it\n');
    expect(() => pipes({ argv: ['only-here'] })).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(await collect(pipes({ argv: ['sh', '-c', 'echo default-path'], env: {} }))).toBe('default-path\n');
  });
});

describe('PtyProcess spawn options', () => {
  it('names the program arg0 (same process, via exec -a)', async () => {
    const proc = await pty({ argv: ['/bin/bash', '-c', 'echo "$0 $$"'], arg0: 'custom-name' });
    expect(await collect(proc)).toBe(`custom-name ${proc.pid}\r\n`);
  });

  it('finds argv[0] on the PATH of the child environment and throws ENOENT when absent', async () => {
    const dir = program('pty-only-here', 'pty-found-it');
    expect(await collect(await pty({ argv: ['pty-only-here'], env: { PATH: dir } }))).toBe('pty-found-it\r\n');
    await expect(pty({ argv: ['pty-only-here'] })).rejects.toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe.skipIf(NO_SANDBOX !== undefined)(titled('LocalExecutor spawn options in the sandbox', NO_SANDBOX), () => {
  it('names the program inside the sandbox arg0, not bubblewrap around it', async () => {
    for (const tty of [false, true]) {
      const proc = await new LocalExecutor({ watchdog: false }).spawn({
        ...base,
        tty,
        argv: ['/bin/bash', '-c', 'echo "name=$0"'],
        arg0: 'custom-name',
        sandbox: sandboxPolicy({ mode: 'read-only' }),
      });
      live.push(proc);
      expect(await collect(proc)).toMatch(/name=custom-name\r?\n/);
    }
  });
});
