// When Landlock's answer to an operation counts as bubblewrap's, and what of bubblewrap's final tree is its own
// making: pure, on the answers and snapshots test/fixtures/fs-ops.py prints.
import { KEPT, type Answer, type Op, type OpPath, type StartTree } from './differential-ops.js';

/**
 * Whether `path` goes through a kept name missing at the start, directly or by `link-git`: bubblewrap covers it
 * with an empty read-only folder (the kernel then sees a folder where Landlock's sees nothing).
 */
function throughMask(path: OpPath | undefined, start: StartTree): boolean {
  if (path === undefined) return false;
  const [token, first] = path.split('/');
  if (token !== 'W' && token !== 'V') return false;
  const kept = start[token];
  const present = (name: string | undefined) =>
    (name === '.git' && kept.git) || (name === '.agents' && kept.agents) || (name === '.codex' && kept.codex);
  const name = first === 'link-git' ? '.git' : first;
  return name !== undefined && KEPT.includes(name) && !present(name);
}

/**
 * How bubblewrap's kernel says the policy refuses: a read-only mount (EROFS); a root's top or a kept name is a mount
 * point there (EBUSY to move or remove it), and a rename or link between two of them crosses mounts (EXDEV). These
 * mounts are the policy's own: on the host the same names are plain entries of one file system.
 */
const MOUNT_REFUSALS = new Set(['EROFS', 'EBUSY', 'EXDEV']);

/**
 * How Landlock's answer stands to bubblewrap's for op `index` of `ops`: 'same'; 'refused' (bubblewrap's kernel
 * refused as its mounts do, and Landlock failed too: any errno, as bubblewrap's kernel checks the mount before it
 * looks the last name up (rmdir of a missing name outside: EROFS) and the host's finds what is there first (ENOENT),
 * before Landlock or the supervisor refuse (EACCES, EPERM)); 'masked' (a path through a kept name missing at the
 * start, or an fd opened so, where Landlock failed: bubblewrap's kernel saw its empty mount, Landlock's nothing); or
 * 'differs'.
 */
export function judge(
  ops: readonly Op[],
  index: number,
  start: StartTree,
  bwrap: Answer | undefined,
  landlock: Answer | undefined,
): 'same' | 'refused' | 'masked' | 'differs' {
  if (bwrap === undefined || landlock === undefined) return 'differs';
  if (JSON.stringify(bwrap) === JSON.stringify(landlock)) return 'same';
  if ('err' in bwrap && MOUNT_REFUSALS.has(bwrap.err) && 'err' in landlock) return 'refused';
  if ('err' in landlock && tainted(ops, index, start)) return 'masked';
  return 'differs';
}

function tainted(ops: readonly Op[], index: number, start: StartTree): boolean {
  const op = ops[index];
  if (op === undefined) return false;
  if ([op.path, op.from, op.to].some((path) => throughMask(path, start))) return true;
  return op.fd !== undefined && op.fd >= 0 && op.fd !== index && tainted(ops, op.fd, start);
}

/** A snapshot (fs-ops.py snapshot): entry path → what is there. */
export type Tree = Record<string, Record<string, unknown>>;

/**
 * bubblewrap's snapshot without the mount points it leaves for the kept names missing at the start (an empty
 * folder at each, made on the host for its read-only tmpfs).
 */
export function withoutMasks(tree: Tree, start: StartTree): Tree {
  const kept = (path: string) => throughMask(path, start) && path.split('/').length === 2;
  const empty = (path: string) => !Object.keys(tree).some((other) => other.startsWith(`${path}/`));
  return Object.fromEntries(
    Object.entries(tree).filter(([path, entry]) => !(kept(path) && entry.type === 'dir' && empty(path))),
  );
}
