import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FdWriter } from '../../src/spawn/fd-writer.js';

let dir: string;
const fds: number[] = [];
const open = (path: string, flags: number) => {
  const fd = openSync(path, flags);
  fds.push(fd);
  return fd;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ue-fd-writer-'));
});
afterEach(() => {
  for (const fd of fds.splice(0)) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

describe('FdWriter', () => {
  it('writes in order and resolves each write once its bytes are written', async () => {
    const file = join(dir, 'out');
    const writer = new FdWriter(open(file, constants.O_WRONLY | constants.O_CREAT));
    await Promise.all([
      writer.write('one '),
      writer.write(Buffer.from('two ')),
      writer.write(''),
      writer.write('three'),
    ]);
    expect(readFileSync(file, 'utf8')).toBe('one two three');
  });

  it('waits for room instead of failing when a non-blocking pipe is full', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = open(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = new FdWriter(open(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    const data = Buffer.alloc(300_000, 'z'); // several times a pipe's capacity
    let done = false;
    const written = writer.write(data).then(() => (done = true));

    const received: Buffer[] = [];
    let total = 0;
    const chunk = Buffer.alloc(65_536);
    while (total < data.length) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        const n = readSync(reader, chunk);
        received.push(Buffer.from(chunk.subarray(0, n)));
        total += n;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      }
      // Done means every byte is in the kernel: impossible while more than a pipe's 64 KiB is still unread.
      if (data.length - total > 65_536) expect(done).toBe(false);
    }
    await written;
    expect(Buffer.concat(received).equals(data)).toBe(true);
  });

  it('has written a write completely by the time it resolves, even when closed right after', async () => {
    const file = join(dir, 'out');
    const writer = new FdWriter(open(file, constants.O_WRONLY | constants.O_CREAT));
    const sent = writer.write('sent');
    writer.close(new Error('process has exited'));
    await expect(sent).resolves.toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('sent');
  });

  it('fails writes still waiting for room when closed, and every write after', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    open(fifo, constants.O_RDONLY | constants.O_NONBLOCK); // a reader that never reads
    const writer = new FdWriter(open(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    const writes = Promise.allSettled([writer.write(Buffer.alloc(300_000)), writer.write('queued')]);
    writer.close(new Error('process has exited'));
    expect(await writes).toMatchObject([
      { status: 'rejected', reason: new Error('process has exited') },
      { status: 'rejected', reason: new Error('process has exited') },
    ]);
    await expect(writer.write('later')).rejects.toThrow('process has exited');
  });

  it('fails the write and the writer on an error other than a full queue', async () => {
    const file = join(dir, 'out');
    const readOnly = open(file, constants.O_RDONLY | constants.O_CREAT);
    const writer = new FdWriter(readOnly);
    await expect(writer.write('nope')).rejects.toThrow(/EBADF/);
    await expect(writer.write('again')).rejects.toThrow(/EBADF/);
  });
});
