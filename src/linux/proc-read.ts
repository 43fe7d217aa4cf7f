import { closeSync, openSync, readFileSync, readSync, readlinkSync, statSync } from 'node:fs';
import { optionalNativeHelpers } from '../util/native-addon.js';

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

/**
 * Small /proc files (see readProcText) read one after the other in the order given, each as text or undefined: in
 * one call to our addon where it loads (a probe reads a handful at a time), else one by one.
 */
export function readProcFiles(paths: readonly string[]): (string | undefined)[] {
  const native = optionalNativeHelpers();
  return native ? native.readFiles(paths) : paths.map(readProcText);
}

/**
 * Where a /proc link points and which file (`dev:ino`, as fileId says) it leads to, or undefined when it is gone:
 * `/proc/<pid>/fd/<n>` in one call to our addon where it loads.
 */
export function readProcLinkTarget(path: string): { target: string; id?: string } | undefined {
  const native = optionalNativeHelpers();
  if (native) return native.linkTarget(path);
  const target = readProcLink(path);
  if (target === undefined) return undefined;
  const id = fileId(path);
  return id === undefined ? { target } : { target, id };
}

/** Which file a path is (its device and inode, `dev:ino`), or undefined when it cannot be read. */
export function fileId(path: string): string | undefined {
  try {
    const { dev, ino } = statSync(path);
    return `${dev}:${ino}`;
  } catch {
    return undefined;
  }
}

/** The most bytes readProcessMemory reads at once: a probe's fd sets and poll entries are far smaller. */
const MAX_MEMORY_READ = 65536;

/**
 * `length` bytes of process `pid`'s memory at `address`, or undefined where they cannot all be read (address 0, the
 * process gone, the address unmapped, access refused, more than 64 KiB asked): in one call to our addon where it
 * loads, else by /proc/<pid>/mem.
 */
export function readProcessMemory(pid: number, address: number, length: number): Buffer | undefined {
  if (!(address > 0) || !(length > 0) || length > MAX_MEMORY_READ) return undefined;
  const native = optionalNativeHelpers();
  if (native) return native.readMemory(pid, address, length);
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
    const bytes = Buffer.alloc(length);
    return readSync(fd, bytes, 0, length, address) === length ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
