import { accessSync, constants, lstatSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';

/** Finds an executable the way execvp does; returns its path or undefined. Checked before spawning so a missing
 * shell is a clear error instead of a child that prints "execvp failed" and exits 1. */
export function findExecutable(name: string, pathVar: string | undefined): string | undefined {
  const candidates = name.includes('/')
    ? [resolve(name)]
    : (pathVar ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, name));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Where the server looks for the host programs it runs around a sandbox (bubblewrap, socat, setsid): the system's
 * folders, never its own PATH. A PATH can hold a folder a sandboxed command may write (an activated venv in the
 * workspace, node_modules/.bin, `.`), and a program planted there would run on the host with every right the
 * sandbox withholds.
 */
export const TRUSTED_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Whether nobody but root or this user may change `path` (its owner, and no write access for group or others). */
function heldByUs(path: string): boolean {
  const stat = lstatSync(path);
  return (stat.uid === 0 || stat.uid === process.getuid?.()) && (stat.mode & 0o022) === 0;
}

/**
 * A host program by name from TRUSTED_PATH (or `pathVar`, for callers that name their own folders), by its real
 * path; undefined when it is not there, or when it or its folder could be changed by another user.
 */
export function findTrustedExecutable(name: string, pathVar = TRUSTED_PATH): string | undefined {
  const found = findExecutable(name, pathVar);
  if (found === undefined) return undefined;
  const real = realpathSync(found);
  return heldByUs(real) && heldByUs(dirname(real)) ? real : undefined;
}
