import { BARE_REPOSITORY_MARK, PROTECTED_NAMES, isInside, type SandboxPolicy } from './policy.js';

/** Where the command may write, and what stays read-only or masked inside those places. */
export interface MountPlan {
  /** Bound read-write over the read-only root, outermost first: the writable roots, and the folders pinned. */
  writable: string[];
  /** Existing protected paths inside writable roots, and our private folders there: bound read-only. */
  readOnly: string[];
  /** Missing protected paths inside writable roots: an empty read-only tmpfs, so they cannot be created. */
  masked: string[];
  /** Missing repository files beside a `HEAD` (REPOSITORY_FILES): a read-only empty file, never a folder. */
  maskedFiles: string[];
  /** Protected paths the sandbox cannot keep (a link the command could replace): the sandbox must not start. */
  unprotectable: string[];
  /** Extra read-write binds (the allowlist proxy's socket folder). */
  binds: string[];
  /** The kernel's files under /proc and /sys that stay read-only (those that exist here). */
  kernelReadOnly: string[];
  /** The kernel's files and folders under /proc and /sys that are hidden (those that exist here). */
  kernelMasked: { path: string; dir: boolean }[];
  /** Files holding a token of this server (hideFromSandboxes), by their real paths: covered by an empty file. */
  secrets: string[];
  network: 'off' | 'on';
}

/**
 * The writable roots of `policy` that exist, resolved and without repeats: workspace, /tmp, $TMPDIR, extra roots.
 * Pure: `resolve` answers a path's real path, or undefined when it does not exist.
 */
export function writableRoots(
  policy: SandboxPolicy,
  tmpdir: string | undefined,
  resolve: (path: string) => string | undefined,
): string[] {
  if (policy.mode !== 'workspace-write') return [];
  const roots: string[] = [];
  for (const candidate of [policy.workspace, '/tmp', tmpdir, ...policy.writableRoots]) {
    const real = candidate === undefined || candidate === '' ? undefined : resolve(candidate);
    if (real !== undefined && !roots.includes(real)) roots.push(real);
  }
  return roots;
}

/**
 * What is at a protected path: nothing, an empty folder (a mount point some sandbox made), an empty file (the same,
 * for a file mask), real content, a symbolic link the command could remove or replace (ours, or in a folder without
 * the sticky bit), or a link it cannot touch (another user's, in a sticky folder such as /tmp).
 */
export type PathKind = 'missing' | 'empty' | 'empty-file' | 'present' | 'link' | 'foreign-link';

/**
 * A folder holding `HEAD` (with `objects` and `refs`) is a repository to git, bare: a command could make a writable
 * root one (`git init --bare .`) and plant a `core.fsmonitor` that git then runs outside, as for `.git`. A root
 * without `HEAD` keeps it from being made. A root that is such a repository already, of the server's user, cannot be
 * kept: git reads too many of its files (config, hooks, commondir, info/, objects/info/alternates), so the sandbox
 * refuses it.
 */
const BARE_REPOSITORY_PARTS = ['objects', 'refs'] as const;

/**
 * Where a `HEAD` stands that is not part of such a repository of the server's user (another user's in a shared
 * scratch root such as /tmp, whose content they may change at any time, or a lone file): what git would need to take
 * the folder for a repository (`objects` and `refs`, or a `commondir` naming them elsewhere) and what it would run
 * from one (`config`, `hooks`) stay as they are, read-only, and missing ones become empty read-only files. A file,
 * not a folder: the mount point bubblewrap leaves on the host is then no part of a repository to git either (it
 * wants folders it can enter), so the command can neither complete the repository nor give it a config.
 */
const REPOSITORY_FILES = [...BARE_REPOSITORY_PARTS, 'commondir', 'config', 'hooks'] as const;

/**
 * What a container runtime keeps from its containers (runc's read-only and masked paths). It matters most with the
 * server running as root: the sandbox's uid 0 is then the host's, and the DAC checks of the kernel's knobs pass, so a
 * writable /proc/sys/kernel/core_pattern would run any program as host root at the next crash. bubblewrap covers
 * /proc/sys only when the directory itself tests writable, which it never does (mode 555).
 */
const KERNEL_READ_ONLY = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'] as const;
const KERNEL_MASKED = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/key-users',
  '/proc/kmsg',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
  '/sys/kernel/debug',
] as const;

/** What the mount plan needs to know about the machine; injected so that the plan stays pure. */
export interface MountFacts {
  /** What is at a protected path. */
  kind: (path: string) => PathKind;
  /**
   * Whether what is at a path is another user's, in a sticky folder (a shared scratch root such as /tmp): theirs to
   * keep or remove, never a reason to refuse a sandbox. Default: nothing is.
   */
  theirs?: (path: string) => boolean;
  /** Whether a kernel path exists here, and if so whether it is a folder. */
  kernelPath: (path: string) => 'file' | 'dir' | undefined;
  /** Folders of the server that no sandboxed command may change (its private root), wherever they lie. */
  keepReadOnly?: readonly string[];
  /** Regular files no command may read, resolved (links followed); those that do not exist are left out. */
  secrets?: readonly string[];
}

/** The folders strictly between `outer` and `inner` (inner inside outer), outermost first. */
export function between(outer: string, inner: string): string[] {
  const parts = inner.slice(outer === '/' ? 1 : outer.length + 1).split('/');
  const dirs: string[] = [];
  for (let i = 1; i < parts.length; i++) dirs.push(`${outer === '/' ? '' : outer}/${parts.slice(0, i).join('/')}`);
  return dirs;
}

const depth = (path: string) => (path === '/' ? 0 : path.split('/').length);

/**
 * Which mounts make up the sandbox. A protected path with content is bound read-only; a missing one or an empty
 * folder gets an empty read-only tmpfs (bubblewrap makes the mount point if it is gone by then, so a folder another
 * sandbox made and removed meanwhile cannot make the start fail).
 *
 * Mounts travel with their folder when it is renamed, so a command could rename the folder holding a protected path
 * (`/tmp/a` of a workspace `/tmp/a/ws`) and make a new `.git` at the old place. A mount point cannot be renamed
 * (EBUSY): every folder between a writable root and a writable root, or a read-only folder, inside it is bound over
 * itself, which pins the whole chain.
 */
export function planMounts(roots: readonly string[], network: 'off' | 'on', facts: MountFacts): MountPlan {
  const plan: MountPlan = {
    writable: [],
    readOnly: [],
    masked: [],
    maskedFiles: [],
    unprotectable: [],
    binds: [],
    kernelReadOnly: KERNEL_READ_ONLY.filter((path) => facts.kernelPath(path) !== undefined),
    kernelMasked: KERNEL_MASKED.flatMap((path) => {
      const at = facts.kernelPath(path);
      return at === undefined ? [] : [{ path, dir: at === 'dir' }];
    }),
    secrets: [...new Set(facts.secrets ?? [])],
    network,
  };
  const writable = new Set(roots);
  const pin = (inner: string) => {
    const outer = roots.filter((root) => root !== inner && isInside(inner, root));
    for (const root of outer) for (const dir of between(root, inner)) writable.add(dir);
  };
  for (const root of roots) pin(root);
  // The folders pinned between nested roots get the same protection: git run in an inner root that has no
  // repository of its own walks up past the masked `.git` and would take one planted in such a folder.
  for (const root of [...writable]) {
    const at = (name: string) => (root === '/' ? `/${name}` : `${root}/${name}`);
    const kindOf = (name: string) => facts.kind(at(name));
    const ours = (name: string) => !(facts.theirs?.(at(name)) ?? false);
    const head = kindOf(BARE_REPOSITORY_MARK);
    const parts = BARE_REPOSITORY_PARTS.filter((n) => kindOf(n) !== 'missing' && kindOf(n) !== 'empty-file');
    if (head === 'present' && parts.length > 0 && [BARE_REPOSITORY_MARK, ...parts].every(ours)) {
      plan.unprotectable.push(root);
      continue;
    }
    for (const path of [...PROTECTED_NAMES, BARE_REPOSITORY_MARK].map(at)) {
      const kind = facts.kind(path);
      // Mounts follow links: a link the command could replace would leave the mount on its old target.
      if (kind === 'link') plan.unprotectable.push(path);
      else if (kind === 'present' || kind === 'empty-file') plan.readOnly.push(path);
      else if (kind !== 'foreign-link') plan.masked.push(path); // someone else's link: theirs, and not followed
    }
    if (head === 'missing' || head === 'empty') continue; // masked: no HEAD can be made, so no repository
    for (const path of REPOSITORY_FILES.map(at)) {
      const kind = facts.kind(path);
      if (kind === 'link') plan.unprotectable.push(path);
      else if (kind === 'present') plan.readOnly.push(path);
      else if (kind === 'empty') plan.masked.push(path);
      else if (kind !== 'foreign-link') plan.maskedFiles.push(path);
    }
  }
  for (const dir of facts.keepReadOnly ?? []) {
    if (!roots.some((root) => isInside(dir, root))) continue; // read-only already
    pin(dir);
    plan.readOnly.push(dir);
  }
  plan.writable = [...writable].sort((a, b) => depth(a) - depth(b));
  return plan;
}

/**
 * The bubblewrap command line that runs `argv` under `plan` in `cwd`: the whole file system read-only, a fresh
 * /dev and /proc with the kernel's knobs read-only or hidden, its own user, PID, IPC, UTS and cgroup namespaces (and
 * network namespace when the network is off), no capabilities, and killed with its parent. No --new-session: a tty
 * session keeps its terminal as controlling terminal, so job control and input-wait work; the terminal is the
 * session's own, not the server's.
 */
export function bwrapArgv(
  bwrap: string,
  plan: MountPlan,
  cwd: string,
  argv: readonly string[],
  seccompFd?: number,
): string[] {
  const args = [bwrap, '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev'];
  for (const path of plan.writable) args.push('--bind', path, path);
  for (const path of plan.readOnly) args.push('--ro-bind', path, path);
  for (const path of plan.masked) args.push('--perms', '555', '--tmpfs', path, '--remount-ro', path);
  for (const path of plan.maskedFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of plan.binds) args.push('--bind', path, path);
  // After the writable binds, which would cover them: a token file in /tmp or the workspace stays hidden, and the
  // mount moves with it if its folder is renamed (a hard link to it across the mount is refused: EXDEV).
  for (const path of plan.secrets) args.push('--ro-bind', '/dev/null', path);
  args.push('--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (plan.network === 'off') args.push('--unshare-net');
  args.push('--proc', '/proc');
  // After --proc: the read-only binds cover the fresh /proc's own entries (the host's are the same kernel's).
  for (const path of plan.kernelReadOnly) args.push('--ro-bind', path, path);
  for (const { path, dir } of plan.kernelMasked) {
    if (dir) args.push('--perms', '000', '--tmpfs', path, '--remount-ro', path);
    else args.push('--ro-bind', '/dev/null', path);
  }
  // The filter goes on every process of the sandbox, bubblewrap's own init too (see sandbox-exec.c).
  if (seccompFd !== undefined) args.push('--seccomp', String(seccompFd));
  args.push('--cap-drop', 'ALL', '--chdir', cwd, '--', ...argv);
  return args;
}
