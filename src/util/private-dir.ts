import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The server's own folders: everything it later reads back, executes, deletes or connects to (shell snapshots, the
 * mask registry, the allowlist proxy's sockets) lives under one private root per user, never under a name in a
 * shared folder that another user or a sandboxed command could have made first. Sandboxes keep the root read-only
 * (see bwrap.ts), so a command there cannot change it even when the root lies inside a writable folder.
 */

const uid = () => process.getuid?.() ?? -1;

/** Why a folder is not ours alone, or undefined when it is: a directory (not a link), our own, no access for others. */
export function privateDirProblem(stat: Stats, owner = uid()): string | undefined {
  if (stat.isSymbolicLink()) return 'it is a symbolic link';
  if (!stat.isDirectory()) return 'it is not a directory';
  if (owner >= 0 && stat.uid !== owner) return `it belongs to uid ${stat.uid}, not ${owner}`;
  if ((stat.mode & 0o077) !== 0) return `others have access to it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Makes `path` (its parent must exist) 0700, or takes it if it exists and is ours alone; throws otherwise. */
export function ensurePrivateDir(path: string): string {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const problem = privateDirProblem(lstatSync(path));
  if (problem !== undefined) throw new Error(`refusing to use ${path}: ${problem}`);
  return path;
}

/** A new folder of ours alone under `parent` (a random name, made exclusively, 0700), checked like ensurePrivateDir. */
export function makePrivateDir(parent: string, prefix: string): string {
  const path = mkdtempSync(join(parent, prefix));
  const problem = privateDirProblem(lstatSync(path));
  if (problem !== undefined) throw new Error(`refusing to use ${path}: ${problem}`);
  return path;
}

/**
 * A new folder of this process's own under `root` (default: the private root), named `<prefix><pid>-XXXXXX`: the pid
 * lets a later process remove it when this one ended without doing so (SIGKILL, a test runner ending its worker),
 * which it does here first for `prefix`, so such leftovers do not pile up in the runtime folder (memory).
 */
export function makeProcessDir(prefix: string, root = stateRoot()): string {
  sweepDeadProcessDirs(root, prefix);
  return makePrivateDir(root, `${prefix}${process.pid}-`);
}

/**
 * Removes the folders `<prefix><pid>-…` in `root` whose process is gone; returns their paths. One whose pid is alive
 * stays, whatever that process is now (a pid reused): it is removed once that one is gone too.
 */
export function sweepDeadProcessDirs(root: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = /^(\d+)-/.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || Number(pid) === process.pid || processExists(Number(pid))) continue;
    const path = join(root, name);
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // not ours to remove (another user's root is never listed here), or going away at the same time
    }
  }
  return removed;
}

/** Whether a process with this pid exists (another user's too: EPERM). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `base` is a place to make our root in: a directory (not a link) of ours or root's that nobody else can
 * write to, or one that only its owners may rename entries of (sticky, as /tmp).
 */
function usableBase(base: string): boolean {
  let stat: Stats;
  try {
    stat = lstatSync(base);
  } catch {
    return false;
  }
  if (!stat.isDirectory() || (stat.uid !== uid() && stat.uid !== 0)) return false;
  return (stat.mode & 0o022) === 0 || (stat.mode & 0o1000) !== 0;
}

/**
 * Where the root may go, best first: the user's runtime folder, /run for root, the user's cache folder, then the
 * temp dir. Pure over the environment given.
 */
export function stateRootCandidates(env: NodeJS.ProcessEnv = process.env, home = homedir()): string[] {
  const id = uid();
  const bases = [
    env.XDG_RUNTIME_DIR,
    id === 0 ? '/run' : undefined,
    env.XDG_CACHE_HOME || (home ? join(home, '.cache') : undefined),
    tmpdir(),
  ];
  return bases
    .filter((b): b is string => b !== undefined && b.startsWith('/'))
    .map((b) => join(b, `unified-exec-${id}`));
}

let root: string | undefined;

/**
 * The private root of this user's servers (made on first use): the first candidate that is or can be made ours
 * alone. A folder of that name made by someone else is refused and the next place tried; when every place is taken,
 * a folder with a random name in the temp dir (private all the same, but not shared with the user's other servers).
 */
export function stateRoot(): string {
  if (root !== undefined && isStillPrivate(root)) return root;
  root = undefined;
  for (const candidate of stateRootCandidates()) {
    const base = join(candidate, '..');
    if (base.endsWith('/.cache') && !usableBase(base)) {
      try {
        mkdirSync(base, { mode: 0o700 }); // a fresh home without ~/.cache
      } catch {
        // not ours to make
      }
    }
    if (!usableBase(base)) continue;
    try {
      return (root = ensurePrivateDir(candidate));
    } catch {
      // squatted, or not ours: try the next place
    }
  }
  return (root = makePrivateDir(tmpdir(), `unified-exec-${uid()}-`));
}

function isStillPrivate(path: string): boolean {
  try {
    return privateDirProblem(lstatSync(path)) === undefined;
  } catch {
    return false;
  }
}
