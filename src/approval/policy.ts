import { canonicalCommand, isDangerousCommand, isKnownSafeCommand } from './command-safety.js';

/**
 * When to ask the person before running a command, as Codex names the policies. untrusted: every command that is
 * not known-safe. on-request: only when the model asks to run outside the sandbox, or the command is dangerous.
 * on-failure: run in the sandbox, and ask to run again outside it after the sandbox denied something. never: never
 * ask; dangerous commands and requests to leave the sandbox are refused.
 */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'on-failure', 'never'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** Per call, as in Codex's tool schema: `require_escalated` asks to run this command outside the sandbox. */
export type SandboxPermissions = 'use_default' | 'require_escalated';

/** Why a person is asked. */
export type ApprovalReason = 'untrusted' | 'dangerous' | 'escalation' | 'sandbox-denied';

export type Assessment =
  | { action: 'run'; escalated: boolean }
  | { action: 'ask'; escalated: boolean; reason: ApprovalReason }
  | { action: 'refuse'; message: string };

/** What the person is asked about. */
export interface ApprovalRequest {
  /** The command line as the model wrote it (or the argv joined). */
  command: string;
  argv: readonly string[];
  cwd: string;
  /** True: run outside the sandbox. */
  escalated: boolean;
  reason: ApprovalReason;
  /** The model's one-line reason, when it gave one. */
  justification?: string;
  /** For `sandbox-denied`: what the sandbox refused. */
  denial?: string;
}

/** approve: this once; approve-for-session: this and every identical call (same command, cwd, permissions). */
export interface ApprovalDecision {
  decision: 'approve' | 'approve-for-session' | 'deny';
  /** The person's words, passed on to the model. */
  reason?: string;
}

export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision | undefined>;

/**
 * Whether a command runs as asked, needs a person's yes first, or is refused. `policy` undefined: approvals are off
 * and every command runs as asked. Known-safe commands never ask; dangerous ones always do (never: refused).
 */
export function assess(
  policy: ApprovalPolicy | undefined,
  argv: readonly string[],
  permissions: SandboxPermissions,
): Assessment {
  const escalated = permissions === 'require_escalated';
  if (policy === undefined) return { action: 'run', escalated };
  if (isKnownSafeCommand(argv)) return { action: 'run', escalated };
  if (isDangerousCommand(argv)) {
    if (policy === 'never') {
      return {
        action: 'refuse',
        message:
          'Refused: this command is destructive (it can delete or overwrite work, or gain privileges) and the approval policy is `never`, so nobody can approve it. Do it another way, or ask the user to run it.',
      };
    }
    return { action: 'ask', escalated, reason: 'dangerous' };
  }
  if (escalated) {
    if (policy === 'never') {
      return {
        action: 'refuse',
        message:
          'Refused: running outside the sandbox needs approval, and the approval policy is `never`. Run it inside the sandbox (leave out sandbox_permissions), or ask the user to run it.',
      };
    }
    return { action: 'ask', escalated, reason: 'escalation' };
  }
  if (policy === 'untrusted') return { action: 'ask', escalated: false, reason: 'untrusted' };
  return { action: 'run', escalated: false };
}

/** Approvals a person gave "for this session", keyed by canonical command, cwd and permissions. */
export class ApprovalCache {
  private readonly approved = new Set<string>();

  has(argv: readonly string[], cwd: string, escalated: boolean): boolean {
    return this.approved.has(key(argv, cwd, escalated));
  }

  add(argv: readonly string[], cwd: string, escalated: boolean): void {
    this.approved.add(key(argv, cwd, escalated));
  }
}

const key = (argv: readonly string[], cwd: string, escalated: boolean) =>
  JSON.stringify([canonicalCommand(argv), cwd, escalated]);

/** The reply when a person said no. */
export function deniedMessage(decision: ApprovalDecision): string {
  const said = decision.reason?.trim() ? ` They said: ${decision.reason.trim()}` : '';
  return `Not run: the user denied this command.${said}`;
}
