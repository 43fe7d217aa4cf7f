import { resolve } from 'node:path';
import { lookupChanges, programsOf } from '../approval/command-safety.js';
import { HOST_GIT_FACTS } from '../approval/git-repository.js';
import { repositoryWarnings } from '../approval/git-warnings.js';
import {
  ApprovalCache,
  assess,
  deniedMessage,
  escalates,
  type ApprovalHandler,
  type ApprovalPolicy,
  type ApprovalRequest,
  type SandboxPermissions,
} from '../approval/policy.js';
import { describeDenial, type SandboxDenial } from '../sandbox/denial.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { HOST_FILE_FACTS, writableRootOf } from '../spawn/leave-sandbox.js';
import type { CommandPlan } from '../spawn/types.js';
import { findExecutable } from '../util/executable.js';
import { notApproved } from './errors.js';

/** A command about to run, as the gate sees it. */
export interface GateCall {
  /** What runs, as its executor resolved it (Executor.check): the one source of what the person is shown. */
  plan: CommandPlan;
  /** As the model wrote it, for the person asked. */
  command: string;
  /** For a command line: the plan's argv is its shell's, run as a login shell or not. */
  shell?: { login: boolean };
  tty: boolean;
  /** Where it runs, when not on this machine. */
  location?: string;
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

  /** Whether a call with these permissions leaves the sandbox (when approved): its plan is made for outside. */
  escalates(permissions: SandboxPermissions): boolean {
    return escalates(this.sandbox !== undefined, permissions);
  }

  /**
   * Applies the approval policy to a command about to start: resolves to the sandbox it runs in (undefined: outside
   * one), or throws NOT_APPROVED with the reason (refused by policy or by what it would run, denied by the person,
   * nobody to ask).
   */
  async admit(
    call: GateCall & { permissions: SandboxPermissions; justification?: string | undefined },
  ): Promise<SandboxPolicy | undefined> {
    const assessment = assess(this.policy, {
      argv: call.plan.argv,
      permissions: call.permissions,
      sandboxed: this.sandbox !== undefined,
    });
    if (assessment.action === 'refuse') throw notApproved(assessment.message);
    if (assessment.escalated && call.plan.refusal !== undefined) throw notApproved(`Not run: ${call.plan.refusal}`);
    if (assessment.action === 'ask') {
      const shown = approvalRequest(call);
      await this.ask({
        ...shown,
        escalated: assessment.escalated,
        reason: assessment.reason,
        ...(call.justification ? { justification: call.justification } : {}),
      });
      refuseIfWarnedSince(call, shown);
    }
    return assessment.escalated ? undefined : this.sandbox;
  }

  /**
   * A sandboxed run failed because of the sandbox. on-failure: ask to run it again outside (`retry`), showing what
   * would run there (`outside()`, the command planned for outside the sandbox); otherwise, or when the answer is no,
   * the line that tells the model what happened and what it can do.
   */
  async afterDenial(
    outside: () => GateCall,
    denial: SandboxDenial,
  ): Promise<{ retry: true } | { retry: false; note: string }> {
    if (this.policy !== 'on-failure') return { retry: false, note: this.denialNote(denial) };
    try {
      const call = outside();
      if (call.plan.refusal !== undefined) throw notApproved(`Not run: ${call.plan.refusal}`);
      const shown = approvalRequest(call);
      await this.ask({ ...shown, escalated: true, reason: 'sandbox-denied', denial: denial.evidence });
      refuseIfWarnedSince(call, shown);
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
    // A run asked about each time is never answered from an earlier approval either: what it warns of (a repository
    // the agent planted since) may have come after that approval.
    if (request.askedEachTime === undefined && this.approved.has(request)) return;
    const decision = this.onApproval ? await this.onApproval(request) : undefined;
    if (decision === undefined) {
      throw notApproved(
        `Not run: this command needs the user's approval (${APPROVAL_REASONS[request.reason]}), and nobody can be asked here (the client does not support MCP elicitation, or no approval handler is set). Do it without ${request.escalated ? 'leaving the sandbox' : 'this command'}, or ask the user to run it.`,
      );
    }
    if (decision.decision === 'deny') throw notApproved(deniedMessage(decision, request.escalated));
    if (decision.decision === 'approve-for-session' && request.askedEachTime === undefined) this.approved.add(request);
  }
}

/**
 * What the person is shown of `call`, from its plan: the argv that runs, the programs its command line names as its
 * PATH finds them, and a warning for each of those (and the program itself) that lies where the sandbox being left
 * lets commands write. A command line that changes how its programs are found gets a warning instead of programs.
 * Neither is remembered for the session: a program the agent can rewrite, or one not known, is not what was read.
 */
function approvalRequest(call: GateCall): Omit<ApprovalRequest, 'escalated' | 'reason'> {
  const { plan } = call;
  const changes = lookupChanges(plan.argv);
  const programs = plan.path !== undefined && changes.length === 0 ? foundPrograms(plan) : [];
  const warnings: string[] = [];
  let askedEachTime: string | undefined;
  if (changes.length > 0) {
    warnings.push(
      `Warning: the command changes how its programs are found (${changes.join(', ')}): which programs run is not known before it runs.`,
    );
    askedEachTime = 'which programs it runs is not known before it runs';
  }
  warnings.push(...(plan.warnings ?? []));
  const roots = plan.writableRoots;
  if (roots) {
    for (const path of [plan.argv[0]!, ...programs.map((p) => p.path)]) {
      const root = writableRootOf(path, roots, HOST_FILE_FACTS);
      if (root === undefined) continue;
      warnings.push(
        `Warning: ${path} lies in ${root}, which commands in the sandbox can write: the agent may have written it.`,
      );
      askedEachTime ??= 'a program it runs lies where commands in the sandbox can write, and may change';
    }
  }
  if (roots) {
    const repositories = repositoryWarnings(plan.argv, plan.cwd, plan.gitEnv ?? {}, roots, HOST_GIT_FACTS);
    warnings.push(...repositories);
    if (repositories.length > 0) {
      askedEachTime ??= 'git would read a repository or config that commands in the sandbox can write, and may change';
    }
  }
  return {
    command: call.command,
    argv: plan.argv,
    cwd: plan.cwd,
    ...(plan.cwdId !== undefined ? { cwdId: plan.cwdId } : {}),
    tty: call.tty,
    ...(call.location !== undefined ? { location: call.location } : {}),
    ...(call.shell ? { shell: call.shell } : {}),
    ...(programs.length > 0 ? { programs } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(askedEachTime !== undefined ? { askedEachTime } : {}),
  };
}

/**
 * After a yes: throws NOT_APPROVED when the form would now warn of something it did not (a repository a sandboxed
 * command made while the person read it). What changes after this, before the program starts, is not seen.
 */
function refuseIfWarnedSince(call: GateCall, shown: { warnings?: readonly string[] }): void {
  const added = (approvalRequest(call).warnings ?? []).filter((w) => !(shown.warnings ?? []).includes(w));
  if (added.length > 0) {
    throw notApproved(
      `Not run: while the approval form was open, something changed that it would now warn of: ${added.join(' ')} Ask again to show the person.`,
    );
  }
}

/**
 * The programs the plan's command line names (a shell's `-c` script, from exec_command or an argv), as its PATH (or
 * its directory, for a name with a slash) finds them.
 */
function foundPrograms(plan: CommandPlan): { name: string; path: string }[] {
  return programsOf(plan.argv).flatMap((name) => {
    const path = name.includes('/')
      ? findExecutable(resolve(plan.cwd, name), undefined)
      : findExecutable(name, plan.path);
    return path === undefined ? [] : [{ name, path }];
  });
}

/** The first line of a reply that ran again outside the sandbox. */
export const retriedNote = (denial: SandboxDenial) =>
  `Ran again outside the sandbox with the user's approval, after the sandbox refused: ${denial.evidence}`;
