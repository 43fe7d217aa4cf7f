import { isDangerousCommand, isKnownSafeCommand } from './command-safety.js';
import type { ApprovalPolicy } from './policy-names.js';

export type { ApprovalPolicy } from './policy-names.js';

/**
 * When to ask the person before running a command, as Codex names the policies. untrusted: every command that is
 * not known-safe. on-request: only when the model asks to run outside the sandbox, or the command is dangerous.
 * on-failure: run in the sandbox, and ask to run again outside it after the sandbox denied something. never: never
 * ask; dangerous commands and requests to leave the sandbox are refused.
 *
 * The decisions, by policy, for a command in the sandbox / one that asks to leave it (escalated):
 *
 *   policy       known-safe        dangerous         other             escalated (any command)
 *   untrusted    run               ask               ask               ask (dangerous: ask, as dangerous)
 *   on-request   run               ask               run               ask
 *   on-failure   run               ask               run, ask on deny  ask
 *   never        run               refuse            run               refuse
 *
 * This follows Codex (codex-rs/core exec_policy.rs, render_decision_for_unmatched_command, and the shell handlers'
 * check on escalation), where known-safe never spares the question for an escalated command. Where we differ:
 * - Codex refuses an escalation request outright under every policy but on-request ("you should not ask for
 *   escalated permissions"); under untrusted and on-failure we ask instead: a person is there to answer, and asking
 *   is never looser than refusing.
 * - Codex no longer counts any git command known-safe, because a repository's config can make git run programs.
 *   We keep read-only git known-safe in the sandbox, which holds whatever that config runs; outside a sandbox (none
 *   configured) git is not known-safe, and an escalated git always asks.
 */

/** Per call, as in Codex's tool schema: `require_escalated` asks to run this command outside the sandbox. */
export type SandboxPermissions = 'use_default' | 'require_escalated';

/** Why a person is asked. */
export type ApprovalReason = 'untrusted' | 'dangerous' | 'escalation' | 'sandbox-denied';

export type Assessment =
  | { action: 'run'; escalated: boolean }
  | { action: 'ask'; escalated: boolean; reason: ApprovalReason }
  | { action: 'refuse'; message: string };

/**
 * What runs, exactly: what a person approves, and what an approval for the session is remembered by. Two calls that
 * differ in any of these run something different.
 */
export interface ApprovedRun {
  /** The argv as it will be executed, its program resolved to a path where the executor could (the shell included). */
  argv: readonly string[];
  cwd: string;
  /** The directory's device and inode (`dev:ino`) as shown, where known: a folder swapped in under its name is another. */
  cwdId?: string;
  /** True: run outside the sandbox. */
  escalated: boolean;
  /** True: in a pseudo-terminal, which the agent can type into (write_stdin) while it runs. */
  tty: boolean;
  /** Where it runs, when not on this machine (`ws://10.0.0.2:8700`, `docker://web-1`). */
  location?: string;
}

/** What the person is asked about. */
export interface ApprovalRequest extends ApprovedRun {
  /** The command line as the model wrote it (or its argv joined). */
  command: string;
  /** For a command line (argv is its shell's): whether the shell runs as a login shell, its profile first. */
  shell?: { login: boolean };
  /** Programs the command line names, found on its PATH (or beside its directory), by name, in order. */
  programs?: readonly { name: string; path: string }[];
  /** What the person must read first: a program that runs lies where the agent could have written it. */
  warnings?: readonly string[];
  reason: ApprovalReason;
  /** The model's one-line reason, when it gave one. */
  justification?: string;
  /** For `sandbox-denied`: what the sandbox refused. */
  denial?: string;
  /** Why an approval for the session would not be remembered (it is asked again each time), when it would not. */
  askedEachTime?: string;
}

/** approve: this once; approve-for-session: this and every identical call (the same ApprovedRun). */
export interface ApprovalDecision {
  decision: 'approve' | 'approve-for-session' | 'deny';
  /** The person's words, passed on to the model. */
  reason?: string;
  /**
   * Set on a deny that no person decided: the client answered the request with MCP elicitation's `decline` or
   * `cancel` and no form. Clients that cannot ask anyone answer so (`codex exec` declines, `claude -p` cancels).
   */
  unanswered?: 'decline' | 'cancel';
}

export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision | undefined>;

/** A command about to run, as the approval policy sees it. */
export interface AssessedCall {
  argv: readonly string[];
  permissions: SandboxPermissions;
  /** Whether a sandbox is configured. Without one there is nothing to leave: escalation changes nothing. */
  sandboxed: boolean;
}

const REFUSED_DANGEROUS =
  'Refused: this command is destructive (it can delete or overwrite work, or gain privileges) and the approval policy is `never`, so nobody can approve it. Do it another way, or ask the user to run it.';
const REFUSED_ESCALATION =
  'Refused: running outside the sandbox needs approval, and the approval policy is `never`. Run it inside the sandbox (leave out sandbox_permissions), or ask the user to run it.';

/** Whether a call leaves its sandbox: it asked to, and there is one to leave. */
export const escalates = (sandboxed: boolean, permissions: SandboxPermissions) =>
  sandboxed && permissions === 'require_escalated';

/**
 * Whether a command runs as asked, needs a person's yes first, or is refused. `policy` undefined: approvals are off
 * and every command runs as asked. Escalation always goes through the policy: known-safe spares the question only
 * for a command that stays where it was going to run (in the sandbox, or on a host with none), because what makes
 * a command harmless is often the sandbox around it (git running a planted repository's core.fsmonitor, reading
 * files the sandbox hides). Dangerous commands always ask (never: refused).
 */
export function assess(policy: ApprovalPolicy | undefined, call: AssessedCall): Assessment {
  const escalated = escalates(call.sandboxed, call.permissions);
  if (policy === undefined) return { action: 'run', escalated };
  if (!escalated && isKnownSafeCommand(call.argv, call.sandboxed ? 'sandbox' : 'host')) {
    return { action: 'run', escalated };
  }
  if (isDangerousCommand(call.argv)) {
    return policy === 'never'
      ? { action: 'refuse', message: REFUSED_DANGEROUS }
      : { action: 'ask', escalated, reason: 'dangerous' };
  }
  if (escalated) {
    return policy === 'never'
      ? { action: 'refuse', message: REFUSED_ESCALATION }
      : { action: 'ask', escalated, reason: 'escalation' };
  }
  if (policy === 'untrusted') return { action: 'ask', escalated, reason: 'untrusted' };
  return { action: 'run', escalated };
}

/**
 * Approvals a person gave "for this session": each is the exact run they saw (ApprovedRun): the argv string for
 * string with its resolved program (the shell, `-c` or `-lc`), the working directory, escalation, terminal and place.
 * Nothing looser: blanks a canonical form would fold are part of the program inside a heredoc or a quote, so a call
 * that differs anywhere is asked about again.
 */
export class ApprovalCache {
  private readonly approved = new Set<string>();

  has(run: ApprovedRun): boolean {
    return this.approved.has(key(run));
  }

  add(run: ApprovedRun): void {
    this.approved.add(key(run));
  }
}

// JSON keeps each argument whole and distinct (["a b"] is not ["a", "b"]); lone surrogates are escaped, not lost.
const key = (run: ApprovedRun) =>
  JSON.stringify([run.argv, run.cwd, run.cwdId ?? null, run.escalated, run.tty, run.location ?? null]);

/** The reply to a deny: a person's (with their words, if any), or one that nobody decided. */
export function deniedMessage(decision: ApprovalDecision, escalated = false): string {
  if (decision.unanswered) {
    // Not "the user denied": often there was nobody to ask, and the model must not take it for a person's no.
    const how = decision.unanswered === 'decline' ? 'declined' : 'cancelled';
    return `Not run: nobody approved this command. The client ${how} the approval request without a decision (a client that cannot ask a person answers every request so: \`codex exec\` declines, \`claude -p\` cancels). Do it without ${escalated ? 'leaving the sandbox' : 'this command'}, or ask the user to run it.`;
  }
  const said = decision.reason?.trim() ? ` They said: ${decision.reason.trim()}` : '';
  return `Not run: the user denied this command.${said}`;
}
