/**
 * Which repository git takes from a folder, and whether commands in the sandbox could have written it: the approval
 * form warns for those, as their config (core.fsmonitor, core.pager …) and hooks run programs, outside the sandbox
 * once the command is let out. The rules ask the file system through GitFacts (HOST_GIT_FACTS answers for this
 * machine), so they are tested on plain data.
 *
 * What the sandbox keeps: in every writable root, and in every folder between a root and another root inside it,
 * `.git` is read-only (or missing, and cannot be made) on both backends (bwrap.ts, landlock.ts). Anything else in a
 * writable root the sandbox could have written, repositories included.
 */
import { closeSync, constants, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { between } from '../sandbox/bwrap.js';
import { isInside } from '../sandbox/policy.js';
import { HOST_FILE_FACTS, writableRootOf, type FileFacts } from '../spawn/leave-sandbox.js';

/** What these rules need of the file system beside FileFacts. */
export interface GitFacts extends FileFacts {
  /** What is at `path`, links followed: a folder, something else, or nothing. */
  kind(path: string): 'dir' | 'file' | undefined;
  /** The start of the file at `path` as text (links followed), or undefined when there is none. */
  read(path: string): string | undefined;
  /** The entries of the folder `path` (links followed to it), each a folder, a link or else; [] when none. */
  list(path: string): { name: string; kind: 'dir' | 'link' | 'other' }[];
}

/** A repository as git finds it. */
export interface Repository {
  /** What git took for it: a `.git` folder or file, or a folder that is a repository itself. */
  at: string;
  /** Its folder: `at`, or where the `.git` file `at` points. */
  gitDir: string;
  /** The folder its `commondir` file names, where git reads the config and hooks of a linked worktree. */
  commonDir?: string;
}

/**
 * Folders already walked in one form, with the repository git finds from each (null: none), and how many folders
 * may still be looked at: folders the agent made thousands deep must not hold the server's loop.
 */
export interface Walk {
  found: Map<string, Repository | null>;
  budget: number;
}

/** How many folders one form looks at, top-down and walking up, in all. */
export const MAX_FOLDERS_WALKED = 8192;

export const newWalk = (): Walk => ({ found: new Map(), budget: MAX_FOLDERS_WALKED });

/**
 * The repository git finds from `start`, walking up as git's discovery does: in each folder a `.git` file (followed
 * to the folder it names), a `.git` folder, or the folder itself, when it is a repository; null when none is, and
 * undefined when `walk` ran out of folders to look at first. A folder that does not exist is walked from the part
 * of its path that does (what the script was in when its `cd` failed). git walks up the folder it is in, links
 * resolved (getcwd), not the path it was given: so does this.
 */
export function findRepository(start: string, facts: GitFacts, walk: Walk = newWalk()): Repository | null | undefined {
  const walked: string[] = [];
  let found: Repository | null | undefined = null;
  const existing = existingPart(resolve(start), facts, walk);
  for (let dir = existing && (facts.realPath(existing) ?? existing); ; dir = dirname(dir)) {
    const known = dir === undefined ? undefined : walk.found.get(dir);
    if (dir === undefined || known !== undefined || walk.budget-- <= 0) {
      found = dir === undefined ? undefined : known;
      break;
    }
    walked.push(dir);
    found = repositoryIn(dir, facts);
    if (found !== null || dir === dirname(dir)) break;
  }
  if (found !== undefined) for (const dir of walked) walk.found.set(dir, found);
  return found;
}

/** The longest leading part of `path` that is a folder, looked at from the top down; undefined past the budget. */
function existingPart(path: string, facts: GitFacts, walk: Walk): string | undefined {
  let dir = '/';
  for (const name of path.split('/').filter((part) => part !== '')) {
    const next = join(dir, name);
    if (walk.found.has(next)) {
      dir = next;
      continue;
    }
    if (walk.budget-- <= 0) return undefined;
    if (facts.kind(next) !== 'dir') break;
    dir = next;
  }
  return dir;
}

/** The repository git takes in `dir` itself: its `.git` file or folder, or the folder; null when none. */
function repositoryIn(dir: string, facts: GitFacts): Repository | null {
  const dotGit = join(dir, '.git');
  const kind = facts.kind(dotGit);
  const pointer = kind === 'file' ? gitfileTarget(facts.read(dotGit) ?? '') : undefined;
  if (pointer !== undefined) return repositoryAt(dotGit, resolve(dir, pointer), facts);
  if (kind === 'dir' && isRepository(dotGit, facts)) return repositoryAt(dotGit, dotGit, facts);
  if (isRepository(dir, facts)) return repositoryAt(dir, dir, facts);
  return null;
}

/**
 * The path a `.git` file names, read as git's read_gitfile_gently reads it: the file starts with `gitdir: `, and the
 * rest is the path, exactly (`gitdir:  /usr` names ` /usr`), less the `\n` and `\r` at its end, up to a NUL.
 */
export function gitfileTarget(text: string): string | undefined {
  if (!text.startsWith('gitdir: ')) return undefined;
  const path = text.replace(/[\r\n]+$/, '').slice('gitdir: '.length);
  const nul = path.indexOf('\0');
  return nul < 0 ? path : path.slice(0, nul);
}

/**
 * Whether git may take `dir` for a repository: a `HEAD` file (or a link, which git's validate_headref takes when it
 * points into `refs/`, dangling or not) and `objects` or `refs` (either can come from the environment) or a
 * `commondir` that names a folder. Looser than git, never stricter: a folder git takes, this takes.
 */
function isRepository(dir: string, facts: GitFacts): boolean {
  const head = join(dir, 'HEAD');
  if (facts.kind(head) !== 'file' && !isLink(head, facts)) return false;
  if (facts.kind(join(dir, 'objects')) === 'dir' || facts.kind(join(dir, 'refs')) === 'dir') return true;
  return commonDirOf(dir, facts) !== undefined;
}

const isLink = (path: string, facts: GitFacts): boolean =>
  ((facts.owner(path)?.mode ?? 0) & constants.S_IFMT) === constants.S_IFLNK;

/** The folder the `commondir` file of `gitDir` names (relative to it), if it names one. */
function commonDirOf(gitDir: string, facts: GitFacts): string | undefined {
  const path = join(gitDir, 'commondir');
  const named = facts.kind(path) === 'file' ? facts.read(path)?.split('\n')[0]?.trim() : undefined;
  return named ? resolve(gitDir, named) : undefined;
}

function repositoryAt(at: string, gitDir: string, facts: GitFacts): Repository {
  const commonDir = commonDirOf(gitDir, facts);
  return { at, gitDir, ...(commonDir !== undefined && commonDir !== gitDir ? { commonDir } : {}) };
}

/**
 * The `.git` folders the sandbox keeps read-only: that of each writable root and of each folder between a root and
 * another root inside it, where it is a folder of its own (a link's target is not what was kept).
 */
function keptGitDirs(roots: readonly string[], facts: GitFacts): string[] {
  const kept = new Set(roots);
  for (const outer of roots) {
    for (const inner of roots)
      if (inner !== outer && isInside(inner, outer)) for (const d of between(outer, inner)) kept.add(d);
  }
  return [...kept].map((dir) => join(dir, '.git')).filter((dotGit) => facts.realPath(dotGit) === dotGit);
}

/**
 * Where `repository` reads config and hooks that commands in the sandbox could have written (its folder, or its
 * common folder), and the writable root that folder lies in; undefined when the sandbox could write neither.
 */
export function plantableFolder(
  repository: Repository,
  roots: readonly string[],
  facts: GitFacts,
): { folder: string; root: string } | undefined {
  const kept = keptGitDirs(roots, facts);
  for (const folder of [repository.gitDir, repository.commonDir]) {
    if (folder === undefined) continue;
    const root = writableRootOf(folder, roots, facts);
    const real = facts.realPath(folder) ?? folder;
    if (root !== undefined && !kept.some((dir) => real === dir || isInside(real, dir))) return { folder, root };
  }
  return undefined;
}

/**
 * The repositories git may visit beneath the work tree `top` (submodules, and to be safe every `.git` it could
 * recurse into): each folder below it with a `.git` entry, found by walking down (links not followed, but a link
 * with a `.git` beneath it taken as one), within `walk`'s budget; `finished` false when it ran out first.
 */
export function nestedRepositories(
  top: string,
  facts: GitFacts,
  walk: Walk,
): { repositories: Repository[]; finished: boolean } {
  const repositories: Repository[] = [];
  const folders = [top];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    if (walk.budget-- <= 0) return { repositories, finished: false };
    for (const entry of facts.list(folder)) {
      const path = join(folder, entry.name);
      if (entry.name === '.git') {
        const repository = folder === top ? null : repositoryIn(folder, facts);
        if (repository) repositories.push(repository);
      } else if (entry.kind === 'dir') {
        folders.push(path);
      } else if (entry.kind === 'link' && facts.kind(join(path, '.git')) !== undefined) {
        const repository = repositoryIn(path, facts);
        if (repository) repositories.push(repository);
      }
    }
  }
  return { repositories, finished: true };
}

/** How much of a `.git` or `commondir` file is read: a path, with room to spare. */
const READ_BYTES = 4096;

/** This machine's file system, as GitFacts. */
export const HOST_GIT_FACTS: GitFacts = {
  ...HOST_FILE_FACTS,
  kind: (path) => {
    try {
      // No exception for a missing path: one costs tens of microseconds, and a form may look at thousands.
      const st = statSync(path, { throwIfNoEntry: false });
      return st === undefined ? undefined : st.isDirectory() ? 'dir' : 'file';
    } catch {
      return undefined; // too long, a file on the way, no permission: not there for git either
    }
  },
  list: (path) => {
    try {
      return readdirSync(path, { withFileTypes: true }).map((e) => ({
        name: e.name,
        kind: e.isDirectory() ? 'dir' : e.isSymbolicLink() ? 'link' : 'other',
      }));
    } catch {
      return [];
    }
  },
  read: (path) => {
    let fd: number | undefined;
    try {
      // Non-blocking: a named pipe the sandbox left as `.git` must not hold the server (it reads as nothing).
      fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
      const buffer = Buffer.alloc(READ_BYTES);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, READ_BYTES, 0));
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
};
