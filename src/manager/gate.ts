import {
  ApprovalCache,
  assess,
  deniedMessage,
  type ApprovalHandler,
  type ApprovalPolicy,
  type ApprovalRequest,
  type SandboxPermissions,
} from '../approval/policy.js';
import { describeDenial, type SandboxDenial } from '../sandbox/denial.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { notApproved } from './errors.js';

/** A command about to run, as the gate sees it. */
export interface GateCall {
  argv: readonly string[];
  /** As the model wrote it, for the person asked. */
  command: string;
  cwd: string;
}

const APPROVAL_REASONS = {
  untrusted: 'the approval policy is untrusted and this command is not known to be read-only',
  dangerous: 'it is destructive: it can delete or overwrite work, or gain privileges',
  escalation: 'it asks to run outside the sandbox',
  'sandbox-denied': 'the sandbox refused it, and it would run again outside the sandbox',
} as const;

/**
 * What a manager lets run, and where: its sandbox, its approval policy, the person to ask, and what they approved
 * for this session. One per manager, so approvals never cross from one client to another.
 */
export class CommandGate {
  private readonly approved = new ApprovalCache();

  constructor(
    /** Undefined: commands run unsandboxed (danger-full-access). */
    readonly sandbox: SandboxPolicy | undefined,
    /** Undefined: approvals are off, every command runs as asked. */
    readonly policy: ApprovalPolicy | undefined,
    private readonly onApproval: ApprovalHandler | undefined,
  ) {}

  /**
   * Applies the approval policy to a command about to start: resolves to the sandbox it runs in (undefined: outside
   * one), or throws NOT_APPROVED with the reason (refused by policy, denied by the person, nobody to ask).
   */
  async admit(
    call: GateCall & { permissions: SandboxPermissions; justification?: string | undefined },
  ): Promise<SandboxPolicy | undefined> {
    const assessment = assess(this.policy, {
      argv: call.argv,
      permissions: call.permissions,
      sandboxed: this.sandbox !== undefined,
    });
    if (assessment.action === 'refuse') throw notApproved(assessment.message);
    if (assessment.action === 'ask') {
      await this.ask({
        command: call.command,
        argv: call.argv,
        cwd: call.cwd,
        escalated: assessment.escalated,
        reason: assessment.reason,
        ...(call.justification ? { justification: call.justification } : {}),
      });
    }
    return assessment.escalated ? undefined : this.sandbox;
  }

  /**
   * A sandboxed run failed because of the sandbox. on-failure: ask to run it again outside (`retry`); otherwise, or
   * when the answer is no, the line that tells the model what happened and what it can do.
   */
  async afterDenial(call: GateCall, denial: SandboxDenial): Promise<{ retry: true } | { retry: false; note: string }> {
    if (this.policy !== 'on-failure') return { retry: false, note: this.denialNote(denial) };
    try {
      await this.ask({ ...call, escalated: true, reason: 'sandbox-denied', denial: denial.evidence });
      return { retry: true };
    } catch (error) {
      return { retry: false, note: `${describeDenial(denial, 'asked')} ${(error as Error).message}` };
    }
  }

  /** What the model reads about a denial it may still ask to get around. */
  denialNote(denial: SandboxDenial): string {
    return describeDenial(denial, this.policy === 'never' ? 'unavailable' : 'ask');
  }

  /** Resolves once the person (or an earlier approval for this session) said yes; throws NOT_APPROVED otherwise. */
  private async ask(request: ApprovalRequest): Promise<void> {
    if (this.approved.has(request.argv, request.cwd, request.escalated)) return;
    const decision = this.onApproval ? await this.onApproval(request) : undefined;
    if (decision === undefined) {
      throw notApproved(
        `Not run: this command needs the user's approval (${APPROVAL_REASONS[request.reason]}), and nobody can be asked here (the client does not support MCP elicitation, or no approval handler is set). Do it without ${request.escalated ? 'leaving the sandbox' : 'this command'}, or ask the user to run it.`,
      );
    }
    if (decision.decision === 'deny') throw notApproved(deniedMessage(decision, request.escalated));
    if (decision.decision === 'approve-for-session') this.approved.add(request.argv, request.cwd, request.escalated);
  }
}

/** The first line of a reply that ran again outside the sandbox. */
export const retriedNote = (denial: SandboxDenial) =>
  `Ran again outside the sandbox with the user's approval, after the sandbox refused: ${denial.evidence}`;
