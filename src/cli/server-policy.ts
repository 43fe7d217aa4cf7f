import type { ManagerOptions } from '../manager/types.js';
import { SANDBOX_HELP, probeSandbox } from '../sandbox/launcher.js';
import { describePolicy } from '../sandbox/policy.js';

/** What `mcp` and `serve` run with unless told otherwise: Codex's defaults (sandboxed, the model may ask to leave). */
export function withServerDefaults(options: ManagerOptions): ManagerOptions {
  return {
    ...options,
    sandbox: options.sandbox ?? 'workspace-write',
    approvalPolicy: options.approvalPolicy ?? 'on-request',
  };
}

/**
 * Undefined when the server can run its sandbox (or runs none, knowingly); else why not and what to do. A server
 * never falls back to running commands unsandboxed on its own.
 */
export function sandboxProblem(options: ManagerOptions): string | undefined {
  const mode = options.sandbox ?? 'danger-full-access';
  if (mode === 'danger-full-access') return undefined;
  const probe = probeSandbox();
  if (probe.ok) return undefined;
  return `cannot start with --sandbox ${mode}: ${probe.reason}. To fix it, ${SANDBOX_HELP}.`;
}

/** One line for the log and the start banner: the sandbox and approval policy in force. */
export function policyLine(options: ManagerOptions): string {
  const sandbox = describePolicy({
    mode: options.sandbox ?? 'danger-full-access',
    network: options.network ?? 'off',
    allowedDomains: options.allowedDomains ?? [],
    workspace: options.cwd ?? process.cwd(),
    writableRoots: options.writableRoots ?? [],
  });
  const where =
    options.sandbox === 'workspace-write'
      ? ` (writable: ${options.cwd ?? process.cwd()}, /tmp${(options.writableRoots ?? []).map((r) => `, ${r}`).join('')})`
      : '';
  return `Sandbox: ${sandbox}${where}; approvals: ${options.approvalPolicy ?? 'none'}.`;
}
