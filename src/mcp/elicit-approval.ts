import type { Server } from '@modelcontextprotocol/server';
import { quoteArgv } from '../approval/command-safety.js';
import type { ApprovalDecision, ApprovalHandler, ApprovalRequest } from '../approval/policy.js';

/** The decisions offered, as the form's enum values and the titles a client shows. */
const DECISIONS = [
  { value: 'approve', title: 'Run it this once' },
  { value: 'approve-for-session', title: 'Run it, and do not ask again for this command in this session' },
  { value: 'deny', title: 'Do not run it' },
] as const;

const WHY: Record<ApprovalRequest['reason'], string> = {
  untrusted: 'The approval policy asks before every command that is not known to be read-only.',
  dangerous: 'This command can delete or overwrite work, or gain privileges.',
  escalation: 'The agent asks to run this command outside the sandbox (full access to your files and network).',
  'sandbox-denied': 'The sandbox refused this command; the agent asks to run it again outside the sandbox.',
};

/**
 * The question as the person reads it: warnings first, the command as the agent wrote it, then exactly what runs
 * (the argv with its program's path, the shell's login, the programs its PATH finds, the directory, a terminal the
 * agent can type into, the place), then why they are asked.
 */
export function approvalMessage(request: ApprovalRequest): string {
  const lines = [...(request.warnings ?? []), 'Allow this command?', '', `  ${request.command}`, ''];
  lines.push(`Runs: ${quoteArgv(request.argv)}`);
  if (request.shell) {
    lines.push(
      request.shell.login
        ? 'Login shell: yes (-lc): it runs your login profile first, which can change PATH'
        : 'Login shell: no (-c)',
    );
  }
  if (request.programs?.length) {
    lines.push(`Programs: ${request.programs.map(({ name, path }) => `${name} is ${path}`).join(', ')}`);
  }
  lines.push(`Directory: ${request.cwd}`);
  if (request.tty) lines.push('Terminal: yes: the agent can type into it while it runs');
  if (request.location !== undefined) lines.push(`On: ${request.location}`);
  lines.push(WHY[request.reason]);
  // A dangerous command can also ask to leave the sandbox: the person must see both.
  if (request.escalated && request.reason === 'dangerous') lines.push(WHY.escalation);
  if (request.denial) lines.push(`The sandbox said: ${request.denial}`);
  if (request.justification) lines.push(`The agent's reason: ${request.justification}`);
  if (request.askedEachTime) {
    lines.push(`Approving it for the session runs it this once: ${request.askedEachTime}, so it is asked each time.`);
  }
  return lines.join('\n');
}

/**
 * Asks the person behind an MCP client with the standard `elicitation/create` request: a form with the decision
 * and an optional reason. Answers undefined when the client did not declare form elicitation: nobody to ask.
 * Declining or cancelling the form counts as a deny that nobody decided (`unanswered`).
 */
export function elicitApproval(serverOf: () => Server): ApprovalHandler {
  return async (request) => {
    const server = serverOf();
    if (!server.getClientCapabilities()?.elicitation?.form) return undefined;
    const result = await server.elicitInput({
      mode: 'form',
      message: approvalMessage(request),
      requestedSchema: {
        type: 'object',
        properties: {
          decision: {
            type: 'string',
            title: 'Decision',
            oneOf: DECISIONS.map((d) => ({ const: d.value, title: d.title })),
          },
          reason: { type: 'string', title: 'Reason (optional, passed on to the agent)' },
        },
        required: ['decision'],
      },
    });
    if (result.action !== 'accept') return { decision: 'deny', unanswered: result.action };
    const decision = result.content?.decision;
    const reason = result.content?.reason;
    const answer: ApprovalDecision = {
      decision: DECISIONS.some((d) => d.value === decision) ? (decision as ApprovalDecision['decision']) : 'deny',
    };
    if (typeof reason === 'string' && reason.trim() !== '') answer.reason = reason;
    return answer;
  };
}
