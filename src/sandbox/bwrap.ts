import { PROTECTED_NAMES, type SandboxPolicy } from './policy.js';

/** Where the command may write, and what stays read-only or masked inside those places. */
export interface MountPlan {
  /** Bound read-write over the read-only root. */
  writable: string[];
  /** Existing protected paths inside writable roots: bound read-only. */
  readOnly: string[];
  /** Missing protected paths inside writable roots: an empty read-only tmpfs, so they cannot be created. */
  masked: string[];
  /** Extra read-write binds (the allowlist proxy's socket folder). */
  binds: string[];
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

/** What is at a protected path: nothing, an empty folder (a mount point some sandbox made), or real content. */
export type PathKind = 'missing' | 'empty' | 'present';

/**
 * Which mounts make up the sandbox. A protected path with content is bound read-only; a missing one or an empty
 * folder gets an empty read-only tmpfs (bubblewrap makes the mount point if it is gone by then, so a folder another
 * sandbox made and removed meanwhile cannot make the start fail).
 */
export function planMounts(
  roots: readonly string[],
  network: 'off' | 'on',
  kind: (path: string) => PathKind,
): MountPlan {
  const plan: MountPlan = { writable: [...roots], readOnly: [], masked: [], binds: [], network };
  for (const root of roots) {
    for (const name of PROTECTED_NAMES) {
      const path = root === '/' ? `/${name}` : `${root}/${name}`;
      if (kind(path) === 'present') plan.readOnly.push(path);
      else plan.masked.push(path);
    }
  }
  return plan;
}

/**
 * The bubblewrap command line that runs `argv` under `plan` in `cwd`: the whole file system read-only, a fresh
 * /dev and /proc, its own user, PID and IPC namespaces (and network namespace when the network is off), no
 * capabilities, and killed with its parent. No --new-session: a tty session keeps its terminal as controlling
 * terminal, so job control and input-wait work; the terminal is the session's own, not the server's.
 */
export function bwrapArgv(bwrap: string, plan: MountPlan, cwd: string, argv: readonly string[]): string[] {
  const args = [bwrap, '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev'];
  for (const path of plan.writable) args.push('--bind', path, path);
  for (const path of plan.readOnly) args.push('--ro-bind', path, path);
  for (const path of plan.masked) args.push('--perms', '555', '--tmpfs', path, '--remount-ro', path);
  for (const path of plan.binds) args.push('--bind', path, path);
  args.push('--unshare-user', '--unshare-pid', '--unshare-ipc');
  if (plan.network === 'off') args.push('--unshare-net');
  args.push('--proc', '/proc', '--cap-drop', 'ALL', '--chdir', cwd, '--', ...argv);
  return args;
}
