// /proc files as the kernel hands them over: a file of one record whole in one read, a table of many records about a
// page per read. Real sockets of the test's own make a table longer than a page. Another process's memory, read
// where a real program's select keeps its fd sets.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readProcTable, readProcText, readProcessMemory } from '../../src/linux/proc-read.js';
import { nativeHelpers } from '../../src/util/native-addon.js';

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
