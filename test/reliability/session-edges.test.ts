// Edges of a session found by trying the server as a careless client would, each through the real stdio server with
// real processes: input a program never reads, a character cut off at exit, a short command at the session cap, and
// a working directory the server's user may not enter.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer, textOf, writeUntil, type ServerUnderTest } from './harness.js';
import { titled } from '../helpers/needs.js';
import { CANNOT_SWITCH_USER, removeMountPoint } from '../helpers/nobody.js';

const servers: ServerUnderTest[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
// The folder nobody's servers see the checkout at (test/helpers/nobody.ts), once they are gone.
afterAll(() => removeMountPoint());

async function server(name: string, cliArgs: string[] = []): Promise<ServerUnderTest> {
  const started = await startServer(name, { cliArgs });
  servers.push(started);
  return started;
}

const BASH = { shell: '/bin/bash', login: false } as const;

/** CPU time the process has used, in clock ticks (utime + stime of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('input a program does not read', () => {
  // A terminal in raw mode whose program sleeps: the kernel takes a few KiB, then the rest waits on us.
  const NON_READER = `python3 -c "import tty,time; tty.setraw(0); print('raw', flush=True); time.sleep(1000)"`;

  /**
   * Starts NON_READER and returns its session once its terminal is raw. Typed into before (python can take seconds
   * to start on a loaded machine), the terminal would still be canonical: it takes every byte, dropping what does not
   * fit a line, and nothing would be pending.
   */
  async function nonReader(s: ServerUnderTest): Promise<number> {
    const started = await s.exec({ ...BASH, cmd: NON_READER, tty: true, yield_time_ms: 2_000 });
    expect(started.session_id).toBeTypeOf('number');
    const id = started.session_id!;
    if (!started.output.includes('raw')) await writeUntil(s, id, '', (output) => output.includes('raw'));
    return id;
  }

  it('answers a typing call within its yield, says how much is pending, and holds up no later call', async () => {
    const s = await server('input-pending');
    const id = await nonReader(s);

    const chars = 'x'.repeat(16 * 1024);
    let started = performance.now();
    const first = await s.call('write_stdin', { session_id: id, chars, yield_time_ms: 250 });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(first.isError).toBeFalsy();
    const pending = Number(/Input pending: (\d+) bytes not yet read by the program/.exec(textOf(first))?.[1]);
    expect(pending).toBeGreaterThan(0);
    expect(pending).toBeLessThan(chars.length);

    // A second typing call is not stuck behind the first one's bytes; its own join the queue.
    started = performance.now();
    const second = await s.call('write_stdin', { session_id: id, chars: 'y', yield_time_ms: 250 });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(textOf(second)).toContain(`Input pending: ${pending + 1} bytes`);

    // Waiting on the kernel costs next to nothing: no hot retry loop (it used to retry every 2 ms, ~6 % of a core).
    const before = cpuTicks(s.pid);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(cpuTicks(s.pid) - before).toBeLessThan(12);

    // close_session frees it all, and the id is gone.
    const closed = await s.call('close_session', { session_id: id });
    expect(closed.isError).toBeFalsy();
    const after = await s.call('write_stdin', { session_id: id, chars: '' });
    expect(textOf(after)).toBe(`write_stdin failed: Unknown process id ${id}`);
  });

  it('answers a 1 MiB write within its yield too', async () => {
    const s = await server('input-pending-1mib');
    const id = await nonReader(s);
    const started = performance.now();
    const reply = await s.call('write_stdin', { session_id: id, chars: 'z'.repeat(1024 * 1024), yield_time_ms: 250 });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(textOf(reply)).toMatch(/Input pending: \d+ bytes not yet read by the program/);
    // More input on top of a full queue is refused with a clear error instead of growing without bound.
    const more = await s.call('write_stdin', { session_id: id, chars: 'm'.repeat(64 * 1024), yield_time_ms: 250 });
    expect(more.isError).toBe(true);
    expect(textOf(more)).toMatch(/^write_stdin failed: The program has not read \d+ bytes of earlier input/);
  });
});

describe('a character cut off at exit', () => {
  for (const tty of [true, false]) {
    it(`comes out as U+FFFD, not dropped (${tty ? 'tty' : 'pipes'})`, async () => {
      const s = await server('partial-utf8');
      // `\342\202` is the start of a three-byte character (€ is \342\202\254) that never finishes.
      const reply = await s.exec({ ...BASH, cmd: "printf 'abc\\342\\202'", tty });
      expect(reply.exit_code).toBe(0);
      expect(reply.output).toBe('abc\ufffd');
      expect(reply.original_token_count).toBe(2);
    });
  }
});

describe('the session cap', () => {
  it('is not made room for by a command that exits within its yield, only by one that keeps running', async () => {
    const s = await server('prune-only-live', ['--max-sessions', '2']);
    const live = [
      (await s.exec({ ...BASH, cmd: 'sleep 600', yield_time_ms: 250 })).session_id,
      (await s.exec({ ...BASH, cmd: 'sleep 600', yield_time_ms: 250 })).session_id,
    ];
    const quick = await s.exec({ ...BASH, cmd: 'true' });
    expect(quick.exit_code).toBe(0);
    expect((await s.list()).map((session) => session.session_id)).toEqual(live);

    const third = (await s.exec({ ...BASH, cmd: 'sleep 600', yield_time_ms: 250 })).session_id;
    expect((await s.list()).map((session) => session.session_id)).toEqual([live[1], third]);
  });
});

describe('a working directory the server may not enter', () => {
  it.skipIf(CANNOT_SWITCH_USER !== undefined)(
    titled('says so the same way for tty and pipes', CANNOT_SWITCH_USER),
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ue-locked-'));
      chmodSync(dir, 0o700); // root's own; uid 65534 may not enter it
      try {
        // The server runs as nobody, so the kernel refuses it the directory.
        const nobody = await startServer('locked-workdir-nobody', { asNobody: true });
        servers.push(nobody);
        for (const tty of [true, false]) {
          const reply = await nobody.call('exec_command', { ...BASH, cmd: 'pwd', workdir: dir, tty });
          expect(reply.isError).toBe(true);
          expect(textOf(reply)).toBe(
            `exec_command failed for \`pwd\`: Failed to create unified exec process: working directory ${dir} is not accessible (no permission to enter it); pass an existing \`workdir\``,
          );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
