// The differential test's own rules, on plain data: when two answers count as the same, which of bubblewrap's
// entries are its mounts' making, and how fd ops find their open once links are left out.
import { describe, expect, it } from 'vitest';
import { judge, withoutMasks } from './differential-judge.js';
import { withFds, type Op, type StartTree } from './differential-ops.js';

const bare = { git: false, agents: false, codex: false };
const START: StartTree = { W: { ...bare, git: true }, V: bare };

describe('judge', () => {
  const one = (op: Op, bwrap: object, landlock: object, start = START) =>
    judge([op], 0, start, bwrap as never, landlock as never);

  it('takes equal answers for the same, and a refusal by a mount for any failure', () => {
    expect(one({ op: 'unlink', path: 'W/file' }, { ok: 0 }, { ok: 0 })).toBe('same');
    expect(one({ op: 'chmod', path: 'W/.git/config' }, { err: 'EROFS' }, { err: 'EPERM' })).toBe('refused');
    expect(one({ op: 'rmdir', path: 'O/missing' }, { err: 'EROFS' }, { err: 'ENOENT' })).toBe('refused');
  });

  it('tells apart every other difference, a success against a failure above all', () => {
    expect(one({ op: 'mkdir', path: 'W' }, { err: 'EEXIST' }, { err: 'EACCES' })).toBe('differs');
    expect(one({ op: 'open', path: 'W/link-file' }, { ok: 'fd' }, { err: 'EACCES' })).toBe('differs');
    expect(one({ op: 'chmod', path: 'O/file' }, { err: 'EROFS' }, { ok: 0 })).toBe('differs');
  });

  it('lets a kept name missing at the start fail on Landlock however bubblewrap’s mask answered', () => {
    const mkdir: Op = { op: 'mkdir', path: 'W/.codex' };
    expect(one(mkdir, { err: 'EEXIST' }, { err: 'EACCES' })).toBe('masked');
    expect(one(mkdir, { err: 'EEXIST' }, { ok: 0 })).toBe('differs');
    expect(one(mkdir, { err: 'EEXIST' }, { err: 'EACCES' }, { ...START, W: { ...bare, codex: true } })).toBe('differs');
    const ops: Op[] = [
      { op: 'open', path: 'W/link-git', flags: ['O_RDONLY'] },
      { op: 'fchmod', fd: 0 },
    ];
    expect(judge(ops, 1, { ...START, W: bare }, { err: 'EROFS' }, { err: 'NOFD' })).toBe('refused');
    expect(judge(ops, 1, { ...START, W: bare }, { ok: 0 }, { err: 'NOFD' })).toBe('masked');
    expect(judge(ops, 1, START, { ok: 0 }, { err: 'NOFD' })).toBe('differs');
  });
});

describe('withoutMasks', () => {
  it('drops the empty folders bubblewrap mounts on missing kept names, and nothing else', () => {
    const tree = {
      W: { type: 'dir' },
      'W/.codex': { type: 'dir' },
      'W/.agents': { type: 'dir' },
      'W/.agents/planted': { type: 'file' },
      'W/.git': { type: 'dir' },
      'W/empty': { type: 'dir' },
    };
    expect(Object.keys(withoutMasks(tree, { ...START, W: { ...bare, git: true } }))).toEqual([
      'W',
      'W/.agents',
      'W/.agents/planted',
      'W/.git',
      'W/empty',
    ]);
  });
});

describe('withFds', () => {
  it('points each fd op at an earlier open, counted back', () => {
    const ops = withFds(
      [
        { op: 'fchmod', fdPick: 0 },
        { op: 'open', path: 'W/file' },
        { op: 'open', path: 'W/dir/inner' },
        { op: 'fchmod', fdPick: 1 },
        { op: 'fchmod', fdPick: 2 },
      ],
      false,
    );
    expect(ops.map((op) => op.fd)).toEqual([-1, undefined, undefined, 1, 2]);
  });

  it('leaves out a link of an open file into another folder, and moves the later fds down', () => {
    const ops = withFds(
      [
        { op: 'open', path: 'W/file' },
        { op: 'linkfd', fdPick: 0, to: 'W/dir/x' },
        { op: 'linkfd', fdPick: 0, to: 'W/x' },
        { op: 'open', path: 'W/dir', flags: ['O_RDWR', 'O_TMPFILE'] },
        { op: 'linkfd', fdPick: 0, to: 'W/dir/y' },
      ],
      true,
    );
    expect(ops).toEqual([
      { op: 'open', path: 'W/file' },
      { op: 'linkfd', fd: 0, to: 'W/x' },
      { op: 'open', path: 'W/dir', flags: ['O_RDWR', 'O_TMPFILE'] },
      { op: 'linkfd', fd: 2, to: 'W/dir/y' },
    ]);
  });
});
