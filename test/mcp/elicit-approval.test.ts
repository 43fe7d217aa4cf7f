import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/policy.js';
import { approvalMessage } from '../../src/mcp/elicit-approval.js';

describe('approvalMessage', () => {
  const request = { command: 'rm -rf build', argv: ['/usr/bin/bash', '-c', 'rm -rf build'], cwd: '/w', tty: false };

  it('says a dangerous command would also run outside the sandbox when it asks to', () => {
    const message = approvalMessage({ ...request, escalated: true, reason: 'dangerous' });
    expect(message).toContain('can delete or overwrite work');
    expect(message).toContain('outside the sandbox');
  });

  it('does not say so for a dangerous command that stays in the sandbox', () => {
    expect(approvalMessage({ ...request, escalated: false, reason: 'dangerous' })).not.toContain('outside the sandbox');
  });

  it('shows what runs: the whole argv quoted, login, the programs found, the directory, a terminal, the place', () => {
    const asked: ApprovalRequest = {
      command: 'git status --short',
      argv: ['/usr/bin/bash', '-lc', 'git status --short'],
      cwd: '/w/sub dir',
      tty: true,
      location: 'docker://web-1',
      shell: { login: true },
      programs: [{ name: 'git', path: '/usr/bin/git' }],
      escalated: true,
      reason: 'escalation',
      justification: 'check the repository',
    };
    expect(approvalMessage(asked).split('\n')).toEqual([
      'Allow this command?',
      '',
      '  git status --short',
      '',
      "Runs: /usr/bin/bash -lc 'git status --short'",
      'Login shell: yes (-lc): it runs your login profile first, which can change PATH',
      'Programs: git is /usr/bin/git',
      'Directory: /w/sub dir',
      'Terminal: yes: the agent can type into it while it runs',
      'On: docker://web-1',
      'The agent asks to run this command outside the sandbox (full access to your files and network).',
      "The agent's reason: check the repository",
    ]);
  });

  it('puts warnings first, and says a plain -c shell is no login shell', () => {
    const lines = approvalMessage({
      ...request,
      shell: { login: false },
      warnings: [
        'Warning: /w/run.sh lies in /w, which commands in the sandbox can write: the agent may have written it.',
      ],
      escalated: true,
      reason: 'escalation',
    }).split('\n');
    expect(lines[0]).toMatch(/^Warning: \/w\/run\.sh lies in \/w/);
    expect(lines[1]).toBe('Allow this command?');
    expect(lines).toContain('Login shell: no (-c)');
    expect(lines).not.toContain(expect.stringMatching(/^Terminal|^On:/));
  });

  it('says last when approving for the session runs it only once, and why', () => {
    const lines = approvalMessage({
      ...request,
      escalated: true,
      reason: 'escalation',
      askedEachTime: 'which programs it runs is not known before it runs',
    }).split('\n');
    expect(lines.at(-1)).toBe(
      'Approving it for the session runs it this once: which programs it runs is not known before it runs, so it is asked each time.',
    );
  });
});
