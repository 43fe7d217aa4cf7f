import { approvalPolicyOf, resolveSettings, sandboxPolicyOf } from '../manager/settings.js';
import type { ManagerOptions } from '../manager/types.js';
import { SANDBOX_HELP, chooseBackendAsync } from '../sandbox/backend-probe.js';
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
 * Picks the backend the server's sandbox runs on (the one forced with --sandbox-backend, else bubblewrap where it
 * works, else Landlock) and puts it in the options, so every session uses it without probing again; or says why no
 * sandbox can run and what to do. A server never falls back to running commands unsandboxed on its own. `note`: why
 * bubblewrap was passed over, for the log.
 */
export async function prepareSandbox(
  options: ManagerOptions,
): Promise<{ ok: true; options: ManagerOptions; note?: string } | { ok: false; problem: string }> {
  const mode = options.sandbox ?? 'danger-full-access';
  if (mode === 'danger-full-access') return { ok: true, options };
  // Exec-servers apply the policy on their side and containers are the box: only sessions here need a sandbox.
  const urls = Object.values(options.executors ?? {});
  if (urls.length > 0 && !urls.includes('local')) return { ok: true, options };
  const choice = await chooseBackendAsync(options.sandboxBackend);
  if (!choice.ok) {
    const forced = options.sandboxBackend ? ` --sandbox-backend ${options.sandboxBackend}` : '';
    return {
      ok: false,
      problem: `cannot start with --sandbox ${mode}${forced}: ${choice.reason}. To fix it, ${SANDBOX_HELP}.`,
    };
  }
  const note =
    choice.passedOver === undefined
      ? undefined
      : `the sandbox runs on Landlock: ${choice.passedOver} (see docs/sandbox.md for what each backend covers)`;
  return { ok: true, options: { ...options, sandboxBackend: choice.backend }, ...(note ? { note } : {}) };
}

/** What the Landlock backend does not do that bubblewrap does, said at start (docs/sandbox.md has the table). */
const LANDLOCK_LIMITS =
  'on Landlock, which leaves other processes visible, and with the network off allows no sockets at all';

/** One line for the log and the start banner: the sandbox and approval policy in force. */
export function policyLine(options: ManagerOptions): string {
  const settings = resolveSettings(options);
  const policy = sandboxPolicyOf(settings);
  const sandbox = policy ? describePolicy(policy) : 'danger-full-access (no sandbox)';
  const where =
    policy?.mode === 'workspace-write'
      ? ` (writable: ${[policy.workspace, '/tmp', ...policy.writableRoots].join(', ')})`
      : '';
  const backend =
    policy === undefined || options.sandboxBackend === undefined
      ? ''
      : options.sandboxBackend === 'landlock'
        ? `, ${LANDLOCK_LIMITS}`
        : ', on bubblewrap';
  const executors = Object.entries(settings.executors);
  const chosen = settings.defaultExecutor ?? executors[0]?.[0];
  const named = executors.map(([name, url]) => `${name} (${String(url)})${name === chosen ? ', the default' : ''}`);
  const elsewhere = named.length === 0 ? '' : ` Sessions run on ${named.join('; ')}.`;
  return `Sandbox: ${sandbox}${where}${backend}; approvals: ${approvalPolicyOf(settings) ?? 'none'}.${elsewhere}`;
}
