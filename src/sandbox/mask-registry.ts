import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcTable } from '../linux/proc-read.js';
import { ensurePrivateDir, processExists, stateRoot } from '../util/private-dir.js';

/**
 * The empty folders bubblewrap makes on the host as mount points for masks (a missing `.git`, `.agents`, … inside a
 * writable root), and the empty files it makes for file masks (a missing `refs`, `config`, … beside a `HEAD`), and
 * when they may go. In this process a count of the sessions using each; across processes (two
 * servers sharing /tmp or a workspace) a marker file per process in a folder of the user's, made before the sandbox
 * starts. The last user removes the folder, if it is still empty, no other live process has a marker for it, and no
 * sandbox on the machine has a mount on it: removing it under a starting sandbox would make that one fail to start.
 * The markers live in the user's private root (see private-dir.ts): what the registry deletes is only ever a marker
 * it can read a live process id from the name of, in a folder nobody else can write.
 */
export class MaskRegistry {
  private readonly users = new Map<string, number>();
  private rootDir: string | undefined;

  private get root(): string {
    return (this.rootDir ??= ensurePrivateDir(join(stateRoot(), 'masks')));
  }

  private swept = false;

  /** A session is about to mask `path`. */
  use(path: string): void {
    if (!this.swept) this.sweep();
    const count = this.users.get(path) ?? 0;
    this.users.set(path, count + 1);
    if (count > 0) return;
    try {
      ensurePrivateDir(this.markers(path));
      writeFileSync(join(this.markers(path), String(process.pid)), path, { flag: 'wx' });
    } catch {
      // Without a marker another process may remove the folder early; its own checks still apply.
    }
  }

  /**
   * Sessions that masked `paths` have ended; `bwrap` is the binary sandboxes run (as /proc/<pid>/exe names it).
   * Reads /proc at most once, and only when some folder has no user left here or in another process.
   */
  release(paths: readonly string[], bwrap: string | undefined): void {
    const unused = paths.filter((path) => {
      const count = (this.users.get(path) ?? 1) - 1;
      if (count > 0) {
        this.users.set(path, count);
        return false;
      }
      this.users.delete(path);
      unlinkQuietly(join(this.markers(path), String(process.pid)));
      return !this.othersUse(this.markers(path));
    });
    if (unused.length === 0) return;
    const mounted = bwrap === undefined ? new Set<string>() : sandboxMountPoints(bwrap);
    for (const path of unused) {
      if (mounted.has(path)) continue;
      removeMountPoint(path);
      try {
        rmdirSync(this.markers(path));
      } catch {
        // not empty, or already gone
      }
    }
  }

  /** Once per process: drops the markers of processes that are gone (killed before they could) and empty folders. */
  private sweep(): void {
    this.swept = true;
    let dirs: string[];
    try {
      dirs = readdirSync(this.root);
    } catch {
      return;
    }
    for (const name of dirs) {
      const markers = join(this.root, name);
      if (this.othersUse(markers)) continue;
      try {
        rmdirSync(markers);
      } catch {
        // not empty (this process's own marker), or gone
      }
    }
  }

  private markers(path: string): string {
    return join(this.root, createHash('sha256').update(path).digest('hex').slice(0, 24));
  }

  /** Whether a live process other than this one has a marker in `markers`; stale markers are removed. */
  private othersUse(markers: string): boolean {
    let names: string[];
    try {
      names = readdirSync(markers);
    } catch {
      return false;
    }
    return names.some((name) => {
      if (!/^[1-9]\d*$/.test(name)) return false; // not a marker: never ours to delete
      const pid = Number(name);
      if (pid === process.pid || !isAlive(pid)) {
        if (pid !== process.pid) unlinkQuietly(join(markers, name));
        return false;
      }
      return true;
    });
  }
}

function isAlive(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && processExists(pid);
}

/**
 * Removes a mask's mount point if it is still what bubblewrap made: empty, and the server's user's (someone may have
 * made a real one meanwhile; an empty folder another user had there was masked, and stays theirs).
 */
function removeMountPoint(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.uid !== process.getuid?.()) return;
    if (stat.isDirectory()) rmdirSync(path);
    else if (stat.isFile() && stat.size === 0) unlinkSync(path); // a file mask's
  } catch {
    // not empty, or already gone
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/**
 * Every mount point of the sandboxes on this machine, and every path a starting one names: the mount tables and
 * command lines of the processes whose binary is `bwrap`. Another user's sandbox counts too (two servers of two users
 * share /tmp): its binary cannot be read, so it is told by its name (`comm`, which any process can read). Removing a
 * folder another namespace has a mount on detaches that mount: a sandbox starting then fails, and one running loses
 * the mask.
 */
function sandboxMountPoints(bwrap: string): Set<string> {
  const points = new Set<string>();
  for (const pid of listPids()) {
    const binary = readLink(`/proc/${pid}/exe`);
    if (binary === undefined ? readProcTable(`/proc/${pid}/comm`)?.trim() !== 'bwrap' : binary !== bwrap) continue;
    for (const line of (readProcTable(`/proc/${pid}/mountinfo`) ?? '').split('\n')) {
      const point = line.split(' ')[4];
      if (point !== undefined)
        points.add(point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
    }
    for (const arg of (readProcTable(`/proc/${pid}/cmdline`) ?? '').split('\0'))
      if (arg.startsWith('/')) points.add(arg);
  }
  return points;
}

function listPids(): string[] {
  try {
    return readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
