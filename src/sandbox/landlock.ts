/**
 * The Landlock backend's plan: where a command may write when the sandbox is a Landlock domain rather than
 * bubblewrap's mounts (no user namespaces needed). Pure: the launcher (native/sandbox-exec.c) applies it.
 *
 * Landlock grants are allow-lists inherited by whole subtrees: a right on a folder holds for everything beneath it,
 * and nothing beneath can take it back. So a writable root that must keep `.git` (and the other protected names)
 * read-only cannot be granted as a whole. Such a root is granted entry by entry instead: each folder in it as a
 * subtree, each file for writing, the protected names never. What that costs: a new file or folder directly in the
 * root cannot be made (nor one removed or renamed there); inside its folders everything can. A root that is only
 * scratch space (/tmp, $TMPDIR) is granted whole, unless another writable root or a folder of the server lies in it.
 */
import { join } from 'node:path';
import { BARE_REPOSITORY_MARK, PROTECTED_NAMES, isInside } from './policy.js';

/** What an entry of a folder is, as far as the plan cares. */
export type EntryType = 'dir' | 'file' | 'other';

export interface LandlockFacts {
  /** The entries of a folder (links and sockets as 'other'); empty when it cannot be read. */
  entries: (dir: string) => { name: string; type: EntryType }[];
}

export interface LandlockPlan {
  /** Folders where everything beneath may be written, made and removed. */
  trees: string[];
  /** Files that may be written (and truncated), not removed. */
  files: string[];
  /** Writable roots granted entry by entry: nothing can be made directly in them. */
  entryByEntry: string[];
}

/** The devices any command writes to: the terminal, /dev/null and the like. */
export const DEVICE_FILES = [
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/tty',
  '/dev/ptmx',
  '/dev/random',
  '/dev/urandom',
];
export const DEVICE_TREES = ['/dev/pts'];

/** A name that must stay read-only in a writable root: the protected names, and `HEAD`. */
const KEPT_NAMES = new Set<string>([...PROTECTED_NAMES, BARE_REPOSITORY_MARK]);

/**
 * `roots`: the writable roots, resolved (writableRoots()). `guarded`: those of them whose protected names must hold
 * (the workspace and the extra roots; /tmp and $TMPDIR are scratch). `keepOut`: the server's own folders, which
 * stay read-only wherever they lie.
 */
export function planLandlock(
  roots: readonly string[],
  guarded: readonly string[],
  keepOut: readonly string[],
  facts: LandlockFacts,
): LandlockPlan {
  const plan: LandlockPlan = { trees: [...DEVICE_TREES], files: [...DEVICE_FILES], entryByEntry: [] };
  const barriers = [...roots, ...keepOut];
  const holdsBarrier = (path: string) => barriers.some((b) => b !== path && isInside(b, path));

  /** Grants what is in `dir` but not `dir` itself, going down into folders that hold a root or a kept folder. */
  const grantEntries = (dir: string) => {
    for (const { name, type } of facts.entries(dir)) {
      if (KEPT_NAMES.has(name)) continue;
      const path = join(dir, name);
      if (barriers.includes(path)) continue; // another root (granted on its own) or a folder of the server
      if (type === 'dir' && holdsBarrier(path)) grantEntries(path);
      else if (type === 'dir') plan.trees.push(path);
      else if (type === 'file') plan.files.push(path);
      // Links and sockets: what a link points to is granted (or not) where it lies.
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

/** The launcher's arguments for `plan`: `--tree` and `--file` for each grant. */
export function landlockGrantArgs(plan: LandlockPlan): string[] {
  return [...plan.trees.flatMap((path) => ['--tree', path]), ...plan.files.flatMap((path) => ['--file', path])];
}
