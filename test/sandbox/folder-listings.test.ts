import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FolderListings } from '../../src/sandbox/launcher.js';

// The Landlock launcher lists each writable root's entries on every sandbox it starts (a busy /tmp: about a
// millisecond); FolderListings keeps a listing while the folder is unchanged.
const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ue-listings-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const names = (entries: { name: string }[]) => entries.map((e) => e.name).sort();

describe('FolderListings', () => {
  it('keeps the listing of a folder that has not changed for a second, and lists it again once it changes', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'a'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const listings = new FolderListings();
    const first = listings.entries(dir);
    expect(listings.entries(dir)).toBe(first);
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'c'), '');
    const after = listings.entries(dir);
    expect(after).not.toBe(first);
    expect(names(after)).toEqual(['a', 'b', 'c']);
    expect(after.find((e) => e.name === 'b')?.type).toBe('dir');
  });

  it('does not keep a listing made within a second of the folder changing (a coarse clock may not move again)', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'a'));
    const listings = new FolderListings();
    const first = listings.entries(dir);
    const second = listings.entries(dir);
    expect(second).not.toBe(first);
    expect(names(second)).toEqual(['a']);
  });

  it('lists a folder replaced by another of the same name afresh, and nothing for one that is gone', async () => {
    const parent = fresh();
    const dir = join(parent, 'root');
    mkdirSync(dir);
    mkdirSync(join(dir, 'old'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const listings = new FolderListings();
    expect(names(listings.entries(dir))).toEqual(['old']);
    rmSync(dir, { recursive: true });
    expect(listings.entries(dir)).toEqual([]);
    mkdirSync(dir);
    mkdirSync(join(dir, 'new'));
    expect(names(listings.entries(dir))).toEqual(['new']);
  });
});
