import { closeSync, openSync, readFileSync, readSync, readlinkSync } from 'node:fs';

const buffer = Buffer.alloc(16 * 1024);

/**
 * One small /proc file of a single record (stat, status, syscall, an fdinfo) as text, or undefined when it cannot be
 * read (the process is gone, not Linux). Open, one read into a reused buffer, close: /proc scans and input-wait
 * probes read hundreds of these, so syscalls count. The kernel hands such a file over whole in one read; a table of
 * many records (mountinfo, net/unix) comes a page or so per read: see readProcTable.
 */
export function readProcText(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const length = readSync(fd, buffer, 0, buffer.length, null);
    if (length < buffer.length) return buffer.toString('latin1', 0, length);
    return buffer.toString('latin1') + readFileSync(fd, 'latin1'); // rare: a long children list
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Where a /proc link points (`/proc/<pid>/fd/<n>`: `/dev/pts/3`, `pipe:[123]`), or undefined when it is gone. */
export function readProcLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * A /proc table of many records (`/proc/<pid>/mountinfo`, `/proc/<pid>/net/unix`) as text, read to its end: the
 * kernel hands it over about a page per read, so one read would see only its first rows. Undefined when it cannot
 * be read.
 */
export function readProcTable(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}
