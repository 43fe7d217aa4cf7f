import { describe, expect, it } from 'vitest';
import { DEVICE_FILES, landlockGrantArgs, planLandlock, type EntryType } from '../../src/sandbox/landlock.js';

// The Landlock backend's grants on plain data: a file system as a map of folders to their entries.
type Tree = Record<string, Record<string, EntryType>>;
const facts = (tree: Tree) => ({
  entries: (dir: string) => Object.entries(tree[dir] ?? {}).map(([name, type]) => ({ name, type })),
});
const granted = (plan: ReturnType<typeof planLandlock>) => ({
  trees: plan.trees,
  files: plan.files.filter((path) => !DEVICE_FILES.includes(path)),
  entryByEntry: plan.entryByEntry,
});

const REPO: Tree = {
  '/w': { '.git': 'dir', src: 'dir', 'README.md': 'file', pipe: 'fifo', HEAD: 'file', link: 'other', '.aws': 'dir' },
  '/tmp': { 'x.txt': 'file', build: 'dir' },
};

describe('planLandlock', () => {
  // A file at the top is opened for writing by the supervisor, as one made since: only a named pipe is granted.
  it('grants a workspace entry by entry, never its protected names nor its files, and /tmp whole', () => {
    const plan = planLandlock(['/w', '/tmp'], ['/w'], [], facts(REPO));
    expect(granted(plan)).toEqual({ trees: ['/w/src', '/tmp'], files: ['/w/pipe'], entryByEntry: ['/w'] });
  });

  it('always lets a command write /dev/null and the like, and nothing more of /dev', () => {
    const plan = planLandlock([], [], [], facts({}));
    expect(plan.files).toEqual(DEVICE_FILES);
    expect(plan.trees).toEqual([]);
    expect(plan.files).toContain('/dev/null');
    expect(plan.files).not.toContain('/dev/shm');
  });

  it('lets it read everything but /dev, where only the common devices (and its own terminal, the launcher) are', () => {
    const tree: Tree = {
      '/': { usr: 'dir', etc: 'dir', dev: 'dir', vmlinuz: 'other', 'swap.img': 'file' },
      '/dev': { pts: 'dir', shm: 'dir', null: 'device', tty: 'device', stdin: 'other' },
    };
    const plan = planLandlock([], [], [], facts(tree));
    expect(plan.readTrees).toEqual(['/usr', '/etc', '/dev/shm']);
    expect(plan.readFiles).toEqual(['/swap.img']);
    // /dev/null, /dev/tty and the like are read and written through DEVICE_FILES.
    expect(plan.files).toEqual(expect.arrayContaining(['/dev/null', '/dev/tty']));
  });

  it('grants scratch space entry by entry when a workspace lies in it, down to the workspace, which is its own', () => {
    const tree: Tree = {
      '/tmp': { a: 'dir', other: 'dir', 'f.txt': 'file' },
      '/tmp/a': { ws: 'dir', sibling: 'dir', '.git': 'dir' },
      '/tmp/a/ws': { '.git': 'dir', lib: 'dir' },
    };
    const plan = planLandlock(['/tmp/a/ws', '/tmp'], ['/tmp/a/ws'], [], facts(tree));
    // /tmp/a is neither granted nor renamable: the chain to the workspace stays where it is.
    const { trees, files, entryByEntry } = granted(plan);
    expect([...trees].sort()).toEqual(['/tmp/a/sibling', '/tmp/a/ws/lib', '/tmp/other']);
    expect(files).toEqual([]);
    expect(entryByEntry).toEqual(['/tmp/a/ws', '/tmp']);
    expect(plan.trees).not.toContain('/tmp/a');
    expect(plan.trees).not.toContain('/tmp/a/.git');
  });

  it("keeps the server's own folder read-only inside a writable root", () => {
    const tree: Tree = { '/tmp': { 'unified-exec-0': 'dir', work: 'dir' } };
    const plan = planLandlock(['/tmp'], [], ['/tmp/unified-exec-0'], facts(tree));
    expect(granted(plan)).toEqual({ trees: ['/tmp/work'], files: [], entryByEntry: ['/tmp'] });
  });

  it('grants an extra writable root like the workspace', () => {
    const tree: Tree = { '/w': { src: 'dir' }, '/data': { '.codex': 'dir', set: 'dir' } };
    const plan = planLandlock(['/w', '/data'], ['/w', '/data'], [], facts(tree));
    expect(granted(plan)).toEqual({ trees: ['/w/src', '/data/set'], files: [], entryByEntry: ['/w', '/data'] });
  });

  it('turns a plan into the launcher arguments', () => {
    const plan = { trees: ['/a'], files: ['/b'], entryByEntry: [], readTrees: ['/c'], readFiles: ['/d'] };
    expect(landlockGrantArgs(plan)).toEqual(['--tree', '/a', '--file', '/b', '--read-tree', '/c', '--read-file', '/d']);
  });
});
