import { approvalPolicyOf, resolveSettings, sandboxPolicyOf } from '../manager/settings.js';
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
  // Exec-servers apply the policy on their side and containers are the box: only sessions here need bubblewrap.
  const urls = Object.values(options.executors ?? {});
  if (urls.length > 0 && !urls.includes('local')) return undefined;
  const probe = probeSandbox();
  if (probe.ok) return undefined;
  return `cannot start with --sandbox ${mode}: ${probe.reason}. To fix it, ${SANDBOX_HELP}.`;
}

/** One line for the log and the start banner: the sandbox and approval policy in force. */
export function policyLine(options: ManagerOptions): string {
  const settings = resolveSettings(options);
  const policy = sandboxPolicyOf(settings);
  const sandbox = policy ? describePolicy(policy) : 'danger-full-access (no sandbox)';
  const where =
    policy?.mode === 'workspace-write'
      ? ` (writable: ${[policy.workspace, '/tmp', ...policy.writableRoots].join(', ')})`
      : '';
  const executors = Object.entries(settings.executors);
  const chosen = settings.defaultExecutor ?? executors[0]?.[0];
  const named = executors.map(([name, url]) => `${name} (${String(url)})${name === chosen ? ', the default' : ''}`);
  const elsewhere = named.length === 0 ? '' : ` Sessions run on ${named.join('; ')}.`;
  return `Sandbox: ${sandbox}${where}; approvals: ${approvalPolicyOf(settings) ?? 'none'}.${elsewhere}`;
}
