/** The sandbox policies, named as Codex names them, and what each lets a command touch. */

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
/**
 * read-only: the whole file system readable, nothing writable. workspace-write: also the workspace, /tmp, $TMPDIR
 * and the extra writable roots are writable (but not `.git`, `.agents`, `.codex`, `.aws` inside them).
 * danger-full-access: no sandbox at all.
 */
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * How a sandbox is made: bubblewrap (namespaces and mounts: needs bubblewrap and user namespaces) or a Landlock
 * domain entered by our own launcher (needs only a kernel with Landlock, 5.13+). See docs/sandbox.md.
 */
export const SANDBOX_BACKENDS = ['bwrap', 'landlock'] as const;
export type SandboxBackend = (typeof SANDBOX_BACKENDS)[number];

export const NETWORK_MODES = ['off', 'on'] as const;
/** off: the command has a network of its own with nothing on it (the host's loopback included); on: the host's. */
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** Names kept read-only inside every writable root; missing ones cannot be created either. */
export const PROTECTED_NAMES = ['.git', '.agents', '.codex', '.aws'] as const;

/**
 * A folder holding `HEAD` (with `objects` and `refs`) is a repository to git, bare: a writable root keeps it
 * read-only (or missing) too, beside the protected names, so that no command can make the root one (see bwrap.ts).
 */
export const BARE_REPOSITORY_MARK = 'HEAD';

/** Whether `path` lies strictly inside `root` (both absolute, resolved). */
export const isInside = (path: string, root: string) => root === '/' || path.startsWith(`${root}/`);

export interface SandboxPolicy {
  mode: SandboxMode;
  network: NetworkMode;
  /**
   * With network off: hosts the command may still reach over HTTP and HTTPS, through a filtering proxy
   * (`registry.npmjs.org`, `*.github.com`). Empty: none.
   */
  allowedDomains: readonly string[];
  /** Writable under workspace-write: usually the server's working directory. */
  workspace: string;
  /** Writable under workspace-write besides the workspace, /tmp and $TMPDIR. */
  writableRoots: readonly string[];
  /** The backend the sandbox runs on, when known (it tells what a refusal looks like: see denial.ts). */
  backend?: SandboxBackend;
}

/** True when commands under `policy` run in a sandbox at all. */
export function isSandboxed(policy: SandboxPolicy | undefined): policy is SandboxPolicy {
  return policy !== undefined && policy.mode !== 'danger-full-access';
}

/** True when the command has no direct network under `policy` (it may still have the allowlist proxy). */
export function isNetworkRestricted(policy: SandboxPolicy | undefined): boolean {
  return isSandboxed(policy) && policy.network === 'off';
}

/** One line for people: `workspace-write, network off`, `read-only, network off except 2 domains`. */
export function describePolicy(policy: SandboxPolicy): string {
  if (policy.mode === 'danger-full-access') return 'danger-full-access (no sandbox)';
  const n = policy.allowedDomains.length;
  const network =
    policy.network === 'on'
      ? 'network on'
      : n > 0
        ? `network off except ${policy.allowedDomains.join(', ')} (HTTP/HTTPS)`
        : 'network off';
  return `${policy.mode}, ${network}`;
}
