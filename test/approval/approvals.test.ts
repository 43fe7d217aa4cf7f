import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest } from '../../src/approval/policy.js';
import { BASH, rejection, useManagers } from '../helpers/manager.js';
import type { SandboxBackend } from '../../src/sandbox/policy.js';
import { BACKENDS, REFUSED, useWorkspace } from '../sandbox/sandbox-helpers.js';

/** An approval handler that answers from a list and records what it was asked. */
function person(...answers: (ApprovalDecision | undefined)[]) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    onApproval: async (request: ApprovalRequest) => {
      asked.push(request);
      return answers.shift();
    },
  };
}

describe.each(BACKENDS)('approvals on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  else approvals(backend);
});

function approvals(backend: SandboxBackend): void {
  const managers = useManagers();
  const manager: typeof managers = (options) => managers({ sandboxBackend: backend, ...options });
  const ws = useWorkspace();
  const made: string[] = [];
  /** A path outside the workspace, removed after the test if a command made it. */
  const outside = () => {
    const path = join(ws.dir, '..', `unified-exec-escalated-${process.pid}-${made.length}`);
    made.push(path);
    return path;
  };
  afterEach(() => made.splice(0).forEach((path) => rmSync(path, { force: true })));

  it('on-request: require_escalated asks, and an approved call runs outside the sandbox', async () => {
    const p = person({ decision: 'approve' });
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', onApproval: p.onApproval });
    const target = outside();
    const r = await m.execCommand({
      command: `touch ${target} && echo made`,
      ...BASH,
      sandboxPermissions: 'require_escalated',
      justification: 'write the report next to the workspace',
    });
    expect(r.exitCode).toBe(0);
    expect(existsSync(target)).toBe(true);
    expect(p.asked).toHaveLength(1);
    expect(p.asked[0]).toMatchObject({
      reason: 'escalation',
      escalated: true,
      justification: 'write the report next to the workspace',
      cwd: ws.dir,
    });
  });

  it('on-request: an ordinary command runs sandboxed without asking; its denial says how to escalate', async () => {
    const p = person();
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', onApproval: p.onApproval });
    const r = await m.execCommand({ command: `touch ${outside()}`, ...BASH });
    expect(r.exitCode).toBe(1);
    expect(p.asked).toHaveLength(0);
    expect(r.sandboxDenial?.kind).toBe('write');
    expect(r.warnings.join('\n')).toMatch(
      new RegExp(
        `^Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them \\(.*${REFUSED[backend]}\\)\\. To run it outside the sandbox, call again with sandbox_permissions "require_escalated"`,
        'm',
      ),
    );
  });

  it('approve for this session: the second identical call does not ask; another command does', async () => {
    const p = person({ decision: 'approve-for-session' }, { decision: 'deny' });
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', onApproval: p.onApproval });
    const call = { command: 'rm -rf build-output', ...BASH };
    expect((await m.execCommand(call)).exitCode).toBe(0);
    expect((await m.execCommand(call)).exitCode).toBe(0);
    expect(p.asked).toHaveLength(1);
    expect(p.asked[0]!.reason).toBe('dangerous');
    await rejection(m.execCommand({ command: 'rm -rf other-output', ...BASH }), 'NOT_APPROVED');
    expect(p.asked).toHaveLength(2);
    // Cached for that manager (that client) only.
    const q = person({ decision: 'deny', reason: 'not today' });
    const other = manager({ cwd: ws.dir, sandbox: 'workspace-write', onApproval: q.onApproval });
    const denied = await rejection(other.execCommand(call), 'NOT_APPROVED');
    expect(denied.message).toBe('Not run: the user denied this command. They said: not today');
  });

  it('deny: the command does not run', async () => {
    const p = person({ decision: 'deny' });
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', onApproval: p.onApproval });
    const marker = join(ws.dir, 'denied-marker');
    await rejection(
      m.execCommand({ command: `touch ${marker}; sudo true`, ...BASH, sandboxPermissions: 'require_escalated' }),
      'NOT_APPROVED',
    );
    expect(existsSync(marker)).toBe(false);
  });

  it('nobody to ask: the call is refused and the reply says why', async () => {
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write' });
    const error = await rejection(
      m.execCommand({ command: 'touch x', ...BASH, sandboxPermissions: 'require_escalated' }),
      'NOT_APPROVED',
    );
    expect(error.message).toMatch(
      /needs the user's approval \(it asks to run outside the sandbox\), and nobody can be asked/,
    );
  });

  it('known-safe commands never ask, even under untrusted; others do', async () => {
    const p = person({ decision: 'approve' });
    const m = manager({
      cwd: ws.dir,
      sandbox: 'workspace-write',
      approvalPolicy: 'untrusted',
      onApproval: p.onApproval,
    });
    expect((await m.execCommand({ command: 'ls && git status | head -n 3', ...BASH })).exitCode).toBe(0);
    expect(p.asked).toHaveLength(0);
    // In a folder of the workspace: the Landlock backend makes nothing new at its top.
    mkdirSync(join(ws.dir, 'sub'), { recursive: true });
    expect((await m.execCommand({ command: 'touch sub/made-under-untrusted', ...BASH })).exitCode).toBe(0);
    expect(p.asked.map((r) => r.reason)).toEqual(['untrusted']);
  });

  it('never: dangerous commands and escalation are refused without asking', async () => {
    const p = person({ decision: 'approve' });
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', approvalPolicy: 'never', onApproval: p.onApproval });
    const dangerous = await rejection(m.execCommand({ command: 'git reset --hard', ...BASH }), 'NOT_APPROVED');
    expect(dangerous.message).toMatch(/destructive .* approval policy is `never`/);
    await rejection(
      m.execCommand({ command: 'touch y', ...BASH, sandboxPermissions: 'require_escalated' }),
      'NOT_APPROVED',
    );
    expect(p.asked).toHaveLength(0);
    const denied = await m.execCommand({ command: `touch ${outside()}`, ...BASH });
    expect(denied.warnings.join('\n')).toContain(
      'Running outside the sandbox is not available (approval policy never)',
    );
  });

  it('on-failure: after a sandbox denial it asks, and runs the command again outside the sandbox', async () => {
    const p = person({ decision: 'approve' });
    const m = manager({
      cwd: ws.dir,
      sandbox: 'workspace-write',
      approvalPolicy: 'on-failure',
      onApproval: p.onApproval,
    });
    const target = outside();
    const r = await m.execCommand({ command: `touch ${target} && echo made`, ...BASH });
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('made');
    expect(existsSync(target)).toBe(true);
    expect(p.asked).toHaveLength(1);
    expect(p.asked[0]).toMatchObject({ reason: 'sandbox-denied', escalated: true });
    expect(p.asked[0]!.denial).toContain(REFUSED[backend]);
    expect(r.warnings[0]).toMatch(/^Ran again outside the sandbox with the user's approval/);
  });

  it('on-failure: a denied retry keeps the sandboxed result and says so', async () => {
    const p = person({ decision: 'deny' });
    const m = manager({
      cwd: ws.dir,
      sandbox: 'workspace-write',
      approvalPolicy: 'on-failure',
      onApproval: p.onApproval,
    });
    const r = await m.execCommand({ command: `touch ${outside()}`, ...BASH });
    expect(r.exitCode).toBe(1);
    expect(r.warnings.join('\n')).toContain('Running it outside the sandbox was not approved.');
  });

  it('without a sandbox, approvals are off by default: nothing is asked or refused', async () => {
    const p = person();
    const m = manager({ cwd: ws.dir, onApproval: p.onApproval });
    writeFileSync(join(ws.dir, 'scratch'), 'x');
    expect((await m.execCommand({ command: 'rm -rf scratch', ...BASH })).exitCode).toBe(0);
    expect(p.asked).toHaveLength(0);
  });
}
