// The differential test's data, pure: the start tree and the operations fast-check draws (differential-judge.ts
// says when two backends' answers count as the same). test/fixtures/fs-ops.py performs and snapshots them.
import fc from 'fast-check';
import { PROTECTED_NAMES, BARE_REPOSITORY_MARK } from '../../src/sandbox/policy.js';

/** A root's token (W: the workspace, in /tmp; V: a --writable-root in /var/tmp; O: a folder outside every root). */
export type Token = 'W' | 'V' | 'O';
/** A token, or a token and a name beneath it: `W`, `W/dir/inner`. */
export type OpPath = string;

export interface Op {
  op: string;
  path?: OpPath;
  from?: OpPath;
  to?: OpPath;
  /** Link target: a path of ours (made absolute by the runner) or a literal relative text. */
  target?: OpPath;
  literal?: string;
  mode?: number;
  flags?: number | string[];
  nofollow?: boolean;
  length?: number;
  /** The index of the open whose fd this op uses (-1: none, the runner answers NOFD). */
  fd?: number;
}

/** One op's answer: `{ ok: 0 }`, `{ ok: 'fd' }`, `{ ok: 7 }` (bytes written) or `{ err: 'ENOENT' }`. */
export type Answer = { ok: number | string } | { err: string };

/** Which kept names a writable root has at the start (HEAD never: a root holding one is a repository). */
export interface Kept {
  git: boolean;
  agents: boolean;
  codex: boolean;
}
export type StartTree = Record<'W' | 'V', Kept>;

export interface Entry {
  path: string;
  type: 'dir' | 'file' | 'symlink';
  mode?: number;
  content?: string;
  target?: string;
}

/** The entries of a writable root at the start; `outsideFile` is O/file's absolute path. */
export function rootEntries(kept: Kept, outsideFile: string): Entry[] {
  const dir = (path: string, mode = 0o755): Entry => ({ path, type: 'dir', mode });
  const file = (path: string, content: string, mode = 0o644): Entry => ({ path, type: 'file', content, mode });
  const link = (path: string, target: string): Entry => ({ path, type: 'symlink', target });
  return [
    ...(kept.git ? [dir('.git'), file('.git/HEAD', 'ref: refs/heads/main\n'), file('.git/config', '[core]\n')] : []),
    ...(kept.git ? [dir('.git/objects'), dir('.git/refs')] : []),
    ...(kept.agents ? [dir('.agents'), file('.agents/AGENTS.md', 'agents\n')] : []),
    ...(kept.codex ? [dir('.codex'), file('.codex/config.toml', 'codex\n')] : []),
    file('file', 'hello\n'),
    file('ro', 'ro\n', 0o444),
    dir('dir'),
    file('dir/inner', 'inner\n'),
    dir('dir/sub'),
    dir('empty'),
    dir('evil'),
    file('evil/config', 'evil\n'),
    link('link-file', 'file'),
    link('link-dir', 'dir'),
    link('link-git', '.git'),
    link('link-dangling', 'missing'),
    link('link-out', outsideFile),
  ];
}

export const OUTSIDE_ENTRIES: Entry[] = [
  { path: 'file', type: 'file', content: 'outside\n', mode: 0o644 },
  { path: 'dir', type: 'dir', mode: 0o755 },
  { path: 'dir/inner', type: 'file', content: 'outside inner\n', mode: 0o644 },
];

/** The names a writable root keeps at its top. */
export const KEPT = [...PROTECTED_NAMES, BARE_REPOSITORY_MARK] as readonly string[];
const ROOT_NAMES = [
  '',
  'file',
  'ro',
  'dir',
  'dir/inner',
  'dir/sub',
  'dir/new',
  'empty',
  'evil',
  'evil/config',
  'link-file',
  'link-dir',
  'link-dir/inner',
  'link-git',
  'link-git/config',
  'link-dangling',
  'link-out',
  'missing',
  'missing-dir/x',
  '.git',
  '.git/config',
  '.git/new',
  '.git/objects',
  '.agents',
  '.agents/x',
  '.codex',
  '.codex/x',
  '.aws',
  'HEAD',
];
const under = (token: Token, name: string) => (name === '' ? token : `${token}/${name}`);
const PATHS: Record<Token, readonly string[]> = {
  W: ROOT_NAMES.map((name) => under('W', name)),
  V: ROOT_NAMES.map((name) => under('V', name)),
  O: ['', 'file', 'dir', 'dir/inner', 'missing'].map((name) => under('O', name)),
};

/**
 * Whether a rename or link of `path` (its last name not followed) acts on what the policy keeps: a root's top, a
 * kept name in it or beneath one, something outside every root.
 */
function keptByPolicy(path: OpPath): boolean {
  const [token, first, ...rest] = path.split('/');
  if (token === 'O' || first === undefined || KEPT.includes(first)) return true;
  return rest.length > 0 && ['link-git', 'link-out'].includes(first);
}

/** The folder an entry is in, `link-dir` followed (`W/link-dir/inner` is in `W/dir`). */
const folderOf = (path: OpPath) =>
  path
    .split('/')
    .slice(0, -1)
    .map((name, i) => (i === 1 && name === 'link-dir' ? 'dir' : name))
    .join('/');

/**
 * A rename or link the policy allows whose answer under bubblewrap is no oracle, so not generated: between the two
 * writable roots (bubblewrap binds each on its own mount, so its kernel answers EXDEV where the host's, one file
 * system, moves the entry); with `sameFolder`, also between two folders of one root (see the test).
 */
function beyondOracle(op: { from: OpPath; to: OpPath }, sameFolder: boolean): boolean {
  if (keptByPolicy(op.from) || keptByPolicy(op.to)) return false;
  return op.from.split('/')[0] !== op.to.split('/')[0] || (sameFolder && folderOf(op.from) !== folderOf(op.to));
}

const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...PATHS.W) },
  { weight: 2, arbitrary: fc.constantFrom(...PATHS.V) },
  { weight: 1, arbitrary: fc.constantFrom(...PATHS.O) },
);
/**
 * A path for a metadata call: any but a root's top itself, whose mode, owner, times and attributes the policy keeps
 * from the sandbox on Landlock (`chmod 0777 /tmp` would drop /tmp's sticky bit; the top is the host's), while
 * bubblewrap's mounts leave them writable (docs/security.md, still open there). A policy difference, not an answer
 * to compare.
 */
const metaPath = path.filter((p) => p !== 'W' && p !== 'V');
/** Metadata calls by fd: on an fd opened on a root's top, the same policy difference (see metaPath). */
const META_BY_FD = ['fchmod', 'fchown', 'futimens', 'fsetxattr', 'fremovexattr'];
const OPEN_FLAGS: readonly string[][] = [
  ['O_WRONLY', 'O_CREAT', 'O_TRUNC'],
  ['O_WRONLY', 'O_CREAT', 'O_EXCL'],
  ['O_RDWR', 'O_CREAT'],
  ['O_RDONLY'],
  ['O_WRONLY'],
  ['O_RDWR', 'O_TRUNC'],
  ['O_WRONLY', 'O_APPEND'],
  ['O_RDONLY', 'O_DIRECTORY'],
  ['O_WRONLY', 'O_CREAT', 'O_NOFOLLOW'],
  ['O_RDWR', 'O_TMPFILE'],
  ['O_WRONLY', 'O_TMPFILE'],
  ['O_PATH'],
];
const AT_SYMLINK_NOFOLLOW = 0x100;
const mode = fc.constantFrom(0o600, 0o644, 0o755, 0o700, 0o4755);
const symlinkFlag = fc.constantFrom(0, AT_SYMLINK_NOFOLLOW);
/** Which earlier open an fd op uses: the n-th before it, counted back (resolved by withFds). */
const fdPick = fc.nat(2);
const record = <T extends Record<string, fc.Arbitrary<unknown>>>(name: string, fields: T) =>
  fc.record({ op: fc.constant(name), ...fields });

const opArbitrary = (sameFolder: boolean) =>
  fc.oneof(
    record('mkdir', { path, mode: fc.constantFrom(0o755, 0o700) }),
    { weight: 2, arbitrary: record('open', { path, flags: fc.constantFrom(...OPEN_FLAGS), mode }) },
    // Every flag and combination: RENAME_NOREPLACE 1, RENAME_EXCHANGE 2, RENAME_WHITEOUT 4.
    {
      weight: 3,
      arbitrary: fc
        .record({ op: fc.constant('rename'), from: path, to: path, flags: fc.constantFrom(0, 1, 2, 4, 3, 5, 6, 7) })
        .filter((op) => !beyondOracle(op, sameFolder)),
    },
    fc.record({ op: fc.constant('link'), from: path, to: path }).filter((op) => !beyondOracle(op, sameFolder)),
    record('linkfd', { fdPick, to: path }),
    record('symlink', { path, target: path }),
    record('symlink', { path, literal: fc.constantFrom('file', 'dir', '.git', 'missing', 'dir/inner') }),
    record('unlink', { path }),
    record('rmdir', { path }),
    record('chmod', { path: metaPath, mode }),
    record('fchmodat2', { path: metaPath, mode, flags: symlinkFlag }),
    record('fchmod', { fdPick, mode }),
    record('chown', { path: metaPath, flags: symlinkFlag }),
    record('fchown', { fdPick }),
    record('utimes', { path: metaPath, flags: symlinkFlag }),
    record('futimens', { fdPick }),
    record('setxattr', { path: metaPath, nofollow: fc.boolean() }),
    record('fsetxattr', { fdPick }),
    record('removexattr', { path: metaPath, nofollow: fc.boolean() }),
    record('fremovexattr', { fdPick }),
    record('truncate', { path, length: fc.constantFrom(0, 3) }),
    record('ftruncate', { fdPick, length: fc.constantFrom(0, 3) }),
    record('write', { fdPick }),
  );

/**
 * Each fd op's `fdPick` made the index of an earlier open (counted back from it), or -1 when there is none. A
 * metadata call on an fd opened on a root's top is left out (see metaPath); with `sameFolder`, so is a link of an
 * open file into another folder than its own (see beyondOracle).
 */
export function withFds(ops: readonly (Op & { fdPick?: number })[], sameFolder: boolean): Op[] {
  const opens: number[] = [];
  const resolved = ops.map(({ fdPick: pick, ...op }, index) => {
    if (op.op === 'open') opens.push(index);
    if (pick === undefined) return op;
    return { ...op, fd: opens.length === 0 ? -1 : (opens[opens.length - 1 - (pick % opens.length)] ?? -1) };
  });
  const folderOfOpen = (op: Op | undefined) =>
    Array.isArray(op?.flags) && op.flags.includes('O_TMPFILE') ? op.path : folderOf(op?.path ?? '');
  const onTop = (op: Op) => META_BY_FD.includes(op.op) && ['W', 'V'].includes(resolved[op.fd ?? -1]?.path ?? ''); // see metaPath
  const left = (op: Op) =>
    onTop(op) ||
    (sameFolder &&
      op.op === 'linkfd' &&
      op.to !== undefined &&
      !keptByPolicy(op.to) &&
      folderOfOpen(resolved[op.fd ?? -1]) !== folderOf(op.to));
  // Only links and metadata calls by fd are left out, never an open: an fd's index moves down by those left before it.
  const before = (index: number) => resolved.slice(0, index).filter(left).length;
  return resolved
    .filter((op) => !left(op))
    .map((op) => (op.fd === undefined || op.fd < 0 ? op : { ...op, fd: op.fd - before(op.fd) }));
}

const kept = fc.record({ git: fc.boolean(), agents: fc.boolean(), codex: fc.boolean() });
/**
 * A start tree and 1 to `maxOps` operations. `sameFolder`: renames and links the policy allows stay within one
 * folder, for a bubblewrap sandbox that answers EXDEV to every other (see the test).
 */
export const caseArbitrary = (maxOps: number, sameFolder: boolean) =>
  fc.record({
    start: fc.record({ W: kept, V: kept }),
    ops: fc.array(opArbitrary(sameFolder) as fc.Arbitrary<Op & { fdPick?: number }>, {
      minLength: 1,
      maxLength: maxOps,
    }),
  });
