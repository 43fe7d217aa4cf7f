import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

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

/** Resolves a working directory against `base`; throws a plain Error with the reason when it is unusable. */
export function resolveWorkdir(workdir: string, base: string): string {
  const dir = isAbsolute(workdir) ? workdir : resolve(base, workdir);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new Error(`working directory ${dir} does not exist`);
  }
  if (!isDir) throw new Error(`working directory ${dir} is not a directory`);
  try {
    // A program can start only in a directory it may enter (search permission); say so before spawning, the same
    // for tty and pipes, instead of a shell that cannot start.
    accessSync(dir, constants.X_OK);
  } catch {
    throw new Error(`working directory ${dir} is not accessible (no permission to enter it)`);
  }
  return dir;
}
