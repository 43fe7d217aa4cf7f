/**
 * The Landlock backend's plan: where a command may write when the sandbox is a Landlock domain rather than
 * bubblewrap's mounts (no user namespaces needed). Pure: the launcher (native/sandbox-exec.c) applies it.
 *
 * Landlock grants are allow-lists inherited by whole subtrees: a right on a folder holds for everything beneath it,
 * and nothing beneath can take it back. So a writable root that must keep `.git` (and the other protected names)
 * read-only cannot be granted as a whole. Such a root is granted entry by entry instead: each folder in it as a
 * subtree, each named pipe for writing, the protected names never. What is made, removed or renamed directly in it,
 * and a file there opened for writing, is then the supervisor's to do (native/supervisor.c); the launcher guards
 * every root so, scratch roots included. A root not guarded is granted whole, unless another writable root or a
 * folder of the server lies in it.
 */
import { join } from 'node:path';
import { BARE_REPOSITORY_MARK, PROTECTED_NAMES, isInside } from './policy.js';

/** What an entry of a folder is, as far as the plan cares. */
export type EntryType = 'dir' | 'file' | 'fifo' | 'device' | 'other';

export interface LandlockFacts {
  /** The entries of a folder (links and sockets as 'other'); empty if unreadable. */
  entries: (dir: string) => { name: string; type: EntryType }[];
}

export interface LandlockPlan {
  /** Folders where everything beneath may be written, made and removed. */
  trees: string[];
  /** Files that may be written (and truncated), not removed: devices, named pipes. */
  files: string[];
  /** Writable roots granted entry by entry: what is made directly in them is the supervisor's to make. */
  entryByEntry: string[];
  /** Folders beneath which files may be read, and files that may be read: everything but other terminals. */
  readTrees: string[];
  readFiles: string[];
}

/** The devices any command writes to: /dev/null and the like (its own terminal: the launcher grants it). */
export const DEVICE_FILES = [
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/tty',
  '/dev/ptmx',
  '/dev/random',
  '/dev/urandom',
];

/** Folders of /dev a command reads beside DEVICE_FILES (POSIX shared memory and message queues). */
const DEVICE_READ_TREES = ['shm', 'mqueue'];

/**
 * Reading is allowed everywhere but in /dev, where only DEVICE_FILES, DEVICE_READ_TREES and the command's own
 * terminal (the launcher grants it) may be read: another session's terminal under /dev/pts would give away what is
 * typed into it, and take output written into it for that session's; a disk or the consoles are no command's
 * business. Landlock grants cannot leave a subtree out, so / is granted entry by entry.
 */
export function planReads(facts: LandlockFacts): { readTrees: string[]; readFiles: string[] } {
  const readTrees: string[] = [];
  const readFiles: string[] = [];
  for (const { name, type } of facts.entries('/')) {
    if (name === 'dev') continue;
    if (type === 'dir') readTrees.push(join('/', name));
    else if (type === 'file' || type === 'fifo' || type === 'device') readFiles.push(join('/', name));
    // Links: what they point to is granted where it lies.
  }
  for (const { name, type } of facts.entries('/dev')) {
    if (type === 'dir' && DEVICE_READ_TREES.includes(name)) readTrees.push(join('/dev', name));
  }
  return { readTrees, readFiles };
}

/** A name that must stay read-only in a writable root: the protected names, and `HEAD`. */
export const KEPT_NAMES: readonly string[] = [...PROTECTED_NAMES, BARE_REPOSITORY_MARK];

/**
 * `reads`: planReads(facts), which a caller may keep from one plan to the next (/ and /dev change seldom).
 * `roots`: the writable roots, resolved (writableRoots()). `guarded`: those of them whose protected names must hold
 * (the workspace and the extra roots; /tmp and $TMPDIR are scratch). `keepOut`: the server's own folders, which
 * stay read-only wherever they lie.
 */
export function planLandlock(
  roots: readonly string[],
  guarded: readonly string[],
  keepOut: readonly string[],
  facts: LandlockFacts,
  reads: { readTrees: readonly string[]; readFiles: readonly string[] } = planReads(facts),
): LandlockPlan {
  const plan: LandlockPlan = {
    trees: [],
    files: [...DEVICE_FILES],
    entryByEntry: [],
    readTrees: [...reads.readTrees],
    readFiles: [...reads.readFiles],
  };
  const barriers = [...roots, ...keepOut];
  const holdsBarrier = (path: string) => barriers.some((b) => b !== path && isInside(b, path));

  /** Grants what is in `dir` but not `dir` itself, going down into folders that hold a root or a kept folder. */
  const grantEntries = (dir: string) => {
    for (const { name, type } of facts.entries(dir)) {
      if (KEPT_NAMES.includes(name)) continue;
      const path = join(dir, name);
      if (barriers.includes(path)) continue; // another root (granted on its own) or a folder of the server
      if (type === 'dir' && holdsBarrier(path)) grantEntries(path);
      else if (type === 'dir') plan.trees.push(path);
      else if (type === 'fifo') plan.files.push(path);
      // A regular file is opened for writing by the supervisor, as one made since is: a rule each cost the launcher
      // as much as the rest of its start in a busy /tmp. Links and sockets: what a link points to is granted (or
      // not) where it lies.
    }
  };

  for (const root of roots) {
    // A root inside another is skipped by that one's entries (a barrier) and granted here on its own terms.
    if (guarded.includes(root) || holdsBarrier(root)) {
      plan.entryByEntry.push(root);
      grantEntries(root);
    } else {
      plan.trees.push(root);
    }
  }
  return plan;
}

/** The launcher's arguments for `plan`: `--tree`, `--file`, `--read-tree` and `--read-file` for each grant. */
export function landlockGrantArgs(plan: LandlockPlan): string[] {
  const each = (flag: string, paths: readonly string[]) => paths.flatMap((path) => [flag, path]);
  return [
    ...each('--tree', plan.trees),
    ...each('--file', plan.files),
    ...each('--read-tree', plan.readTrees),
    ...each('--read-file', plan.readFiles),
  ];
}
