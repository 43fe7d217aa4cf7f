import { accessSync, constants, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { PatchParseError, parsePatch, type Hunk } from './parse-patch.js';
import { PatchMismatchError, updatedContents } from './updated-contents.js';

/**
 * What applying a patch came to. `rejected`: nothing was written (the patch does not parse, a file to change is
 * missing, a chunk does not fit, or a file may not be written); `failed`: a write failed part-way, and what was
 * written before it stays, as with Codex.
 */
export type PatchOutcome =
  | { status: 'applied'; summary: string }
  | { status: 'rejected'; message: string }
  | { status: 'failed'; message: string };

/** One file change, checked and computed, ready to write. */
type Change =
  | { kind: 'add'; shown: string; path: string; contents: string }
  | { kind: 'delete'; shown: string; path: string }
  | { kind: 'update'; shown: string; path: string; contents: string; moveTo?: { shown: string; path: string } };

/**
 * Applies a patch in Codex's format to files under `cwd` (relative paths resolve against it). Every file is read and
 * every change computed, and every place to write checked, before anything is written; then the changes are made
 * in patch order. Runs in the sandbox of the command that asked for it, so the kernel decides what may be written.
 */
export function applyPatch(patch: string, cwd: string): PatchOutcome {
  let changes: Change[];
  try {
    changes = planChanges(parsePatch(patch), cwd);
  } catch (error) {
    if (error instanceof PatchParseError || error instanceof PatchMismatchError || error instanceof FileError) {
      return { status: 'rejected', message: error.message };
    }
    throw error;
  }
  if (changes.length === 0) return { status: 'failed', message: 'No files were modified.' };
  const refused = firstUnwritable(changes);
  if (refused) return { status: 'failed', message: refused };
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  try {
    for (const change of changes) {
      if (change.kind === 'add') {
        write(change.path, change.contents);
        added.push(change.shown);
      } else if (change.kind === 'delete') {
        attempt(() => unlinkSync(change.path), `Failed to delete file ${change.path}`);
        deleted.push(change.shown);
      } else if (change.moveTo) {
        write(change.moveTo.path, change.contents);
        attempt(() => unlinkSync(change.path), `Failed to remove original ${change.path}`);
        modified.push(change.moveTo.shown);
      } else {
        write(change.path, change.contents);
        modified.push(change.shown);
      }
    }
  } catch (error) {
    if (error instanceof FileError) return { status: 'failed', message: error.message };
    throw error;
  }
  const lines = [
    'Success. Updated the following files:',
    ...added.map((p) => `A ${p}`),
    ...modified.map((p) => `M ${p}`),
    ...deleted.map((p) => `D ${p}`),
  ];
  return { status: 'applied', summary: `${lines.join('\n')}\n` };
}

/** A file operation that failed, worded `<what> <path>: <reason> (os error N)` as Codex words it. */
class FileError extends Error {}

function planChanges(hunks: Hunk[], cwd: string): Change[] {
  const at = (path: string) => (isAbsolute(path) ? resolve(path) : resolve(cwd, path));
  const targets = new Set<string>();
  const claim = (path: string) => {
    if (targets.has(path)) throw new PatchParseError(`invalid patch: multiple operations target ${path}`);
    targets.add(path);
  };
  return hunks.map((hunk): Change => {
    const path = at(hunk.path);
    claim(path);
    if (hunk.kind === 'add') return { kind: 'add', shown: hunk.path, path, contents: hunk.contents };
    if (hunk.kind === 'delete') {
      attempt(() => readFileSync(path, 'utf8'), `Failed to read ${path}`);
      return { kind: 'delete', shown: hunk.path, path };
    }
    const original = attempt(() => readFileSync(path, 'utf8'), `Failed to read file to update ${path}`);
    const contents = updatedContents(original, hunk.chunks, path);
    if (hunk.moveTo === undefined) return { kind: 'update', shown: hunk.path, path, contents };
    const moveTo = { shown: hunk.moveTo, path: at(hunk.moveTo) };
    if (moveTo.path !== path) claim(moveTo.path);
    return { kind: 'update', shown: hunk.path, path, contents, moveTo };
  });
}

/**
 * The first change whose file may not be written (or removed), as the failure to report; undefined when all may.
 * Asked of the kernel with access(2), which answers for the sandbox's read-only mounts, so a patch the sandbox
 * refuses in part writes nothing and can be run again whole (outside the sandbox, once approved).
 */
function firstUnwritable(changes: Change[]): string | undefined {
  for (const change of changes) {
    const writes = change.kind === 'update' && change.moveTo ? [change.moveTo.path] : [change.path];
    const removes = change.kind === 'delete' || (change.kind === 'update' && change.moveTo) ? [change.path] : [];
    for (const path of writes) {
      const problem = unwritable(path, false);
      if (problem) return `Failed to write file ${path}: ${problem}`;
    }
    for (const path of removes) {
      const problem = unwritable(path, true);
      if (problem)
        return `Failed to ${change.kind === 'delete' ? 'delete file' : 'remove original'} ${path}: ${problem}`;
    }
  }
  return undefined;
}

/** Why `path` (`removing`: its folder) cannot be written, for the reasons a sandbox or permissions give; else undefined. */
function unwritable(path: string, removing: boolean): string | undefined {
  // The file itself when it exists, else the nearest folder above it that does (where it would be created).
  let probe = removing ? dirname(path) : path;
  for (;;) {
    try {
      accessSync(probe, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && dirname(probe) !== probe) probe = dirname(probe);
      else if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return osError(error);
      else return undefined; // anything else shows itself when the write is made
    }
  }
}

function write(path: string, contents: string): void {
  attempt(() => mkdirSync(dirname(path), { recursive: true }), `Failed to create parent directories for ${path}`);
  attempt(() => writeFileSync(path, contents), `Failed to write file ${path}`);
}

function attempt<T>(operation: () => T, what: string): T {
  try {
    return operation();
  } catch (error) {
    throw new FileError(`${what}: ${osError(error)}`);
  }
}

// The C library's wording of the errors file changes meet, as Rust's io::Error shows them.
const STRERROR: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EROFS: 'Read-only file system',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EEXIST: 'File exists',
  ENOSPC: 'No space left on device',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
};

/** `No such file or directory (os error 2)`. */
function osError(error: unknown): string {
  const { code, errno, message } = error as NodeJS.ErrnoException;
  const text = (code && STRERROR[code]) ?? message;
  return errno === undefined ? text : `${text} (os error ${Math.abs(errno)})`;
}
