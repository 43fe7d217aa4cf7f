// /proc files as the kernel hands them over: a file of one record whole in one read, a table of many records about a
// page per read. Real sockets of the test's own make a table longer than a page.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProcTable, readProcText } from '../../src/linux/proc-read.js';

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
