/**
 * What a command let out of its sandbox may run. Inside the sandbox a command can write its writable roots (the
 * workspace, /tmp, $TMPDIR, the extra roots): a program it left there (a `git` in `node_modules/.bin`, a "shell" in
 * /tmp) must not be what runs outside, where a person approved something else. The rules are pure: they ask the
 * file system through FileFacts (HOST_FILE_FACTS answers for this machine), so they are tested on plain data.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, normalize } from 'node:path';
import { isInside } from '../sandbox/policy.js';

/** What these rules need of the file system. */
export interface FileFacts {
  /** The real path of `path` (links resolved), or undefined when it does not exist. */
  realPath(path: string): string | undefined;
  /** The owner and mode of `path` itself (a link's own, not its target's), or undefined when it does not exist. */
  owner(path: string): { uid: number; mode: number } | undefined;
  /** The uid this process runs as. */
  uid: number;
}

/** Names a person reads as a shell: a program so named in an argv runs its `-c` script like `shell` does. */
const SHELL_NAMES: ReadonlySet<string> = new Set('ash bash csh dash fish ksh mksh rbash sh tcsh yash zsh'.split(' '));

const within = (path: string, root: string) => path === root || isInside(path, root);

/**
 * The writable root that `path` or any folder above it lies in (by its real path, so a link in a writable root
 * counts: the command could point it elsewhere), or undefined. A path that does not exist is judged by its name.
 */
export function writableRootOf(path: string, roots: readonly string[], facts: FileFacts): string | undefined {
  for (let p = normalize(path); ; p = dirname(p)) {
    const real = facts.realPath(p) ?? p;
    const root = roots.find((r) => within(real, r) || within(p, r));
    if (root !== undefined) return root;
    if (p === dirname(p)) return undefined;
  }
}

/**
 * `pathVar` for a command let out of the sandbox: without empty and relative entries (the working directory, which
 * the command may have chosen in a writable root), folders that do not exist (a command could make them), and
 * folders in a writable root. The order of the rest is kept.
 */
export function cleanPath(pathVar: string | undefined, roots: readonly string[], facts: FileFacts): string {
  return (pathVar ?? '')
    .split(':')
    .filter(
      (dir) =>
        dir !== '' &&
        isAbsolute(dir) &&
        facts.realPath(dir) !== undefined &&
        writableRootOf(dir, roots, facts) === undefined,
    )
    .join(':');
}

/** Why nobody but root or this user may not change `path` (owner, write bits), or undefined when nobody else may. */
function otherWriter(path: string, facts: FileFacts): string | undefined {
  const st = facts.owner(path);
  if (st === undefined) return `${path} does not exist`;
  if (st.uid !== 0 && st.uid !== facts.uid) return `${path} belongs to uid ${st.uid}`;
  if ((st.mode & 0o022) !== 0) return `others may write ${path} (mode ${(st.mode & 0o7777).toString(8)})`;
  return undefined;
}

/**
 * Why `shell` (an absolute path, as found) is no system shell a command may leave the sandbox with, or undefined
 * when it is one: it (or the file it links to) is listed in `listed` (/etc/shells and the configured shell), lies in
 * no writable root, and neither it, its real file nor their folders can be changed by another user.
 */
export function systemShellProblem(
  shell: string,
  listed: readonly string[],
  roots: readonly string[],
  facts: FileFacts,
): string | undefined {
  const real = facts.realPath(shell);
  if (real === undefined) return 'it does not exist';
  for (const path of [shell, real]) {
    const root = writableRootOf(path, roots, facts);
    if (root !== undefined) return `it lies in ${root}, which commands in the sandbox can write`;
  }
  const isListed = listed.some((entry) => entry === shell || facts.realPath(entry) === real);
  if (!isListed) return 'it is not an installed shell: /etc/shells does not list it';
  // By real paths: a link's own mode says nothing (0777); who may replace it is who may write its real folder.
  const folder = facts.realPath(dirname(shell)) ?? dirname(shell);
  return [folder, real, dirname(real)].map((path) => otherWriter(path, facts)).find((why) => why !== undefined);
}

/** The shells /etc/shells lists (its text): absolute paths, comments and blank lines left out. */
export function parseEtcShells(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('/'));
}

/** Whether an argv's program is a shell by name (`bash`, `/usr/bin/zsh`): it is checked as `shell` is. */
export const isShellName = (program: string) => SHELL_NAMES.has(basename(program));

/** This machine's file system, as FileFacts. */
export const HOST_FILE_FACTS: FileFacts = {
  realPath: (path) => {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  owner: (path) => {
    try {
      const st = lstatSync(path);
      return { uid: st.uid, mode: st.mode };
    } catch {
      return undefined;
    }
  },
  uid: process.getuid?.() ?? -1,
};
