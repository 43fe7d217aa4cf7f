// /proc files as the kernel hands them over: a file of one record whole in one read, a table of many records about a
// page per read. Real sockets of the test's own make a table longer than a page. Another process's memory, read
// where a real program's select keeps its fd sets. A process's files kept open between probes, read afresh, given up
// when it is gone, even when its pid is another process's by then (in a pid namespace of the test's own, where the
// next pid can be chosen).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readProcFiles, readProcTable, readProcText, readProcessMemory } from '../../src/linux/proc-read.js';
import { nativeHelpers } from '../../src/util/native-addon.js';
import { findNativeFile } from '../../src/util/native-binary.js';

const dir = mkdtempSync(join(tmpdir(), 'ue-proc-read-'));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

describe('reading /proc', () => {
  it('reads a table of many records to its end, where one read sees only its first page', async () => {
    // 200 listening unix sockets with 60-character paths: /proc/self/net/unix grows past 16 KiB, our buffer's size.
    for (let i = 0; i < 200; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(join(dir, `socket-${String(i).padStart(40, '0')}`), resolve));
    }
    const last = join(dir, `socket-${String(199).padStart(40, '0')}`);
    const whole = readProcTable('/proc/self/net/unix')!;
    expect(whole.length).toBeGreaterThan(16 * 1024);
    expect(whole).toContain(last);
    expect(whole.split('\n').filter((line) => line.includes(dir))).toHaveLength(200);
    // The one-read reader is for files of one record; on this table it stops a page or so in.
    expect(readProcText('/proc/self/net/unix')!.length).toBeLessThan(whole.length);
  });

  it('reads a file of one record whole, and says undefined for what cannot be read', () => {
    expect(readProcText('/proc/self/status')).toMatch(/^Name:[\s\S]*\nvoluntary_ctxt_switches:/);
    expect(readProcText('/proc/0/status')).toBeUndefined();
    expect(readProcTable('/proc/0/mountinfo')).toBeUndefined();
  });
});

/** What /proc/<pid>/mem holds at `address`: the way the sampler read it before our addon did. */
function procMem(pid: number, address: number, length: number): Buffer {
  const fd = openSync(`/proc/${pid}/mem`, 'r');
  try {
    const bytes = Buffer.alloc(length);
    expect(readSync(fd, bytes, 0, length, address)).toBe(length);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

describe("reading another process's memory", () => {
  it("reads a waiting select's fd sets as /proc/<pid>/mem has them, and undefined for what cannot be read", async () => {
    // select() on fd 0 (a pipe) for reading and fd 3 for exceptions: its fd sets, in its own memory.
    const code = 'import os, select\nr, w = os.pipe()\nos.dup2(r, 3)\nselect.select([0], [], [3])';
    const child = spawn('python3', ['-c', code], { stdio: ['pipe', 'ignore', 'inherit'] });
    try {
      const pid = child.pid!;
      const args = await vi.waitFor(
        () => {
          const fields = readProcText(`/proc/${pid}/syscall`)!.trim().split(' ');
          expect(['23', '270']).toContain(fields[0]); // select, pselect6 (x64; arm64 has only pselect6, 72)
          return fields.slice(1).map((field) => Number.parseInt(field, 16));
        },
        { timeout: 10_000, interval: 20 },
      );
      const [nfds, readSet, writeSet, exceptSet] = args as [number, number, number, number];
      expect(nfds).toBe(4);
      expect(writeSet).toBe(0); // an empty list: no set at all
      const read = readProcessMemory(pid, readSet, 8)!;
      const except = readProcessMemory(pid, exceptSet, 8)!;
      expect(read.readBigUInt64LE(0)).toBe(1n); // fd 0
      expect(except.readBigUInt64LE(0)).toBe(8n); // fd 3
      expect(read).toEqual(procMem(pid, readSet, 8));
      expect(readProcessMemory(pid, readSet - 4096, 4104)).toEqual(procMem(pid, readSet - 4096, 4104));
      // Nothing is mapped at the lowest page; nothing at all is read at 0 or past 64 KiB.
      expect(readProcessMemory(pid, 4096, 8)).toBeUndefined();
      expect(readProcessMemory(pid, 0, 8)).toBeUndefined();
      expect(readProcessMemory(pid, readSet, 65537)).toBeUndefined();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      expect(readProcessMemory(pid, readSet, 8)).toBeUndefined(); // gone
    } finally {
      child.kill();
    }
  });

  it('is read by our addon in one call, which refuses bad arguments', () => {
    const native = nativeHelpers();
    expect(native.readMemory(process.pid, 4096, 8)).toBeUndefined();
    expect(() => native.readMemory(process.pid, 4096, 0)).toThrow(TypeError);
    expect(() => native.readMemory(process.pid, 4096, 65537)).toThrow(TypeError);
    expect(() => native.readMemory(0, 4096, 8)).toThrow(TypeError);
  });
});

/** This process's fds open on files under `/proc/<pid>/`, by what they are open on. */
function keptOf(pid: number): string[] {
  const targets: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`/proc/${pid}/`)) targets.push(target);
    } catch {
      // closed since it was listed (the listing's own fd)
    }
  }
  return targets.sort();
}

/** A process that runs every 10 ms for as long as it lives, and waits in between. */
function ticking(): ChildProcess {
  return spawn('sh', ['-c', 'while sleep 0.01; do :; done'], { stdio: 'ignore' });
}

/** A process that waits, and costs the machine nothing meanwhile. */
function waiting(): ChildProcess {
  return spawn('sleep', ['60'], { stdio: 'ignore' });
}

async function ended(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited; // reaped: its /proc files answer ESRCH from here on
}

describe("a process's /proc files kept open between reads", () => {
  it('reads a kept file afresh each time, through the one fd it keeps', async () => {
    const child = ticking();
    try {
      const pid = child.pid!;
      const path = `/proc/${pid}/schedstat`;
      const runs = () => Number(readProcFiles([path])[0]!.split(' ')[2]);
      const first = runs();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = runs();
      expect(later).toBeGreaterThan(first); // about 20 runs later: not the text the fd first gave
      expect(keptOf(pid)).toEqual([path]);
      // Its stat, sched and syscall are kept too; its children list and other files are not.
      const [stat, children, status] = readProcFiles([
        `/proc/${pid}/stat`,
        `/proc/${pid}/task/${pid}/children`,
        `/proc/${pid}/status`,
        `/proc/${pid}/sched`,
        `/proc/${pid}/syscall`,
        `/proc/${pid}/task/${pid}/stat`,
      ]);
      expect(stat).toMatch(new RegExp(`^${pid} \\(sh\\) `));
      expect(children).toBeDefined();
      expect(status).toMatch(/^Name:\tsh\n/);
      expect(keptOf(pid)).toEqual(
        ['schedstat', 'sched', 'stat', 'syscall', `task/${pid}/stat`].map((name) => `/proc/${pid}/${name}`).sort(),
      );
    } finally {
      await ended(child);
    }
  });

  it('gives up the files of a process that has gone, and answers undefined for them', async () => {
    const child = waiting();
    const pid = child.pid!;
    expect(readProcFiles([`/proc/${pid}/stat`, `/proc/${pid}/schedstat`]).every((text) => text !== undefined)).toBe(
      true,
    );
    expect(keptOf(pid)).toHaveLength(2);
    await ended(child);
    expect(readProcFiles([`/proc/${pid}/stat`, `/proc/${pid}/schedstat`])).toEqual([undefined, undefined]);
    expect(keptOf(pid)).toEqual([]);
  });

  it('closes what has gone unread for a second, and keeps no more than 32 files', async () => {
    // The stat of 40 processes: the 8 read first are given up for the later ones.
    const children = Array.from({ length: 40 }, waiting);
    try {
      const paths = children.map((child) => `/proc/${child.pid!}/stat`);
      expect(readProcFiles(paths).every((text) => text !== undefined)).toBe(true);
      const keptNow = () => children.filter((child) => keptOf(child.pid!).length > 0).length;
      expect(keptNow()).toBe(32);
      expect(children.slice(0, 8).every((child) => keptOf(child.pid!).length === 0)).toBe(true);
      const read = performance.now();
      await vi.waitFor(() => expect(keptNow()).toBe(0), { timeout: 5_000, interval: 50 });
      expect(performance.now() - read).toBeGreaterThan(900);
    } finally {
      await Promise.all(children.map(ended));
    }
  });

  const CANNOT_UNSHARE = spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', 'true'])
    .status
    ? 'a pid namespace of our own cannot be made here (unshare --user --pid)'
    : undefined;

  it.skipIf(CANNOT_UNSHARE !== undefined && !process.env.CI)(
    "reads the process that has a pid now, not the one whose file was kept under it (the pid's reuse)",
    () => {
      // In a pid namespace of its own, a Node process reads /proc/<pid>/stat of `cat` through our addon, which keeps
      // the file; `cat` exits and is reaped, the namespace's next pid is set to the same, and `tail` started: the
      // same path, read again, must be `tail`'s.
      const script = `
        const { spawn } = require('node:child_process');
        const { readdirSync, readlinkSync, writeFileSync } = require('node:fs');
        const addon = require(process.argv[1]);
        const started = (command) => new Promise((resolve) => {
          const child = spawn(command, [], { stdio: ['pipe', 'ignore', 'ignore'] });
          child.once('spawn', () => resolve(child));
        });
        const kept = (path) => readdirSync('/proc/self/fd').some((fd) => {
          try { return readlinkSync('/proc/self/fd/' + fd) === path; } catch { return false; }
        });
        (async () => {
          const cat = await started('cat');
          const path = '/proc/' + cat.pid + '/stat';
          const before = addon.readFiles([path])[0];
          const keptBefore = kept(path);
          const exited = new Promise((resolve) => cat.once('exit', resolve));
          cat.kill('SIGKILL');
          await exited;
          writeFileSync('/proc/sys/kernel/ns_last_pid', String(cat.pid - 1));
          const tail = await started('tail');
          const after = addon.readFiles([path])[0];
          console.log(JSON.stringify({ cat: cat.pid, tail: tail.pid, before, keptBefore, after, keptAfter: kept(path) }));
          tail.kill('SIGKILL');
        })();
      `;
      const run = spawnSync(
        'unshare',
        [
          '--user',
          '--map-root-user',
          '--pid',
          '--fork',
          '--mount-proc',
          process.execPath,
          '-e',
          script,
          findNativeFile('unified_exec_native.node')!,
        ],
        { encoding: 'utf8', timeout: 30_000 },
      );
      expect(run.stderr).toBe('');
      const seen = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(seen.tail).toBe(seen.cat);
      expect(seen.before).toMatch(new RegExp(`^${String(seen.cat)} \\(cat\\) `));
      expect(seen.keptBefore).toBe(true);
      expect(seen.after).toMatch(new RegExp(`^${String(seen.cat)} \\(tail\\) `));
      expect(seen.keptAfter).toBe(true);
    },
  );
});
