import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

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
