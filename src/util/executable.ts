import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

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
