// Fixture home directories for shell snapshot tests: a login profile of the test's own, never the machine user's
// (whose ~/.bashrc may be slow or print things). Pass the home as HOME in the environment of every shell.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stateRoot } from '../../src/util/private-dir.js';

/** Where every ShellSnapshots of this user makes its directory (one `snapshots-*` folder per instance). */
export const SNAPSHOT_ROOT = stateRoot();

/**
 * Returns a maker of fresh home directories holding `files` (name → content, relative to the home); all of them
 * are removed after the suite.
 */
export function useHomes(): (files: Record<string, string>) => string {
  const root = { dir: '' };
  let made = 0;
  beforeAll(() => {
    root.dir = mkdtempSync(join(tmpdir(), 'ue-snapshot-homes-'));
  });
  afterAll(() => rmSync(root.dir, { recursive: true, force: true }));
  return (files) => {
    const home = join(root.dir, `home-${made++}`);
    mkdirSync(home);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(home, name), content);
    return home;
  };
}

/** The snapshot files (of any ShellSnapshots of this user) whose text contains `text`. */
export function snapshotsContaining(text: string): string[] {
  return filesContaining(SNAPSHOT_ROOT, text);
}

function filesContaining(root: string, text: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  for (const dir of readdirSync(root).filter((name) => name.startsWith('snapshots-'))) {
    let names: string[];
    try {
      names = readdirSync(join(root, dir));
    } catch {
      continue; // another suite's, removed meanwhile
    }
    for (const name of names) {
      const file = join(root, dir, name);
      try {
        if (readFileSync(file, 'utf8').includes(text)) found.push(file);
      } catch {
        // removed meanwhile
      }
    }
  }
  return found;
}
