import { describe, expect, it } from 'vitest';
import {
  ApprovalCache,
  assess,
  deniedMessage,
  type ApprovalPolicy,
  type ApprovedRun,
  type Assessment,
  type SandboxPermissions,
} from '../../src/approval/policy.js';

const bash = (script: string): string[] => ['bash', '-lc', script];

/** One command of each kind the policy tells apart. */
const COMMANDS = {
  'known-safe': ['git', 'status'],
  'known-safe script': bash('ls && git status | head -n 5'),
  dangerous: bash('rm -rf build'),
  other: bash('touch made'),
} as const;
type Kind = keyof typeof COMMANDS;

/** What happens, written short: run, ask:<reason>, refuse. */
const verdict = (a: Assessment): string => (a.action === 'ask' ? `ask:${a.reason}` : a.action);

/** The decisions in the sandbox, by policy and kind: [stays in the sandbox, asks to leave it]. */
const IN_SANDBOX: Record<ApprovalPolicy, Record<Kind, [string, string]>> = {
  untrusted: {
    'known-safe': ['run', 'ask:escalation'],
    'known-safe script': ['run', 'ask:escalation'],
    dangerous: ['ask:dangerous', 'ask:dangerous'],
    other: ['ask:untrusted', 'ask:escalation'],
  },
  'on-request': {
    'known-safe': ['run', 'ask:escalation'],
    'known-safe script': ['run', 'ask:escalation'],
    dangerous: ['ask:dangerous', 'ask:dangerous'],
    other: ['run', 'ask:escalation'],
  },
  'on-failure': {
    'known-safe': ['run', 'ask:escalation'],
    'known-safe script': ['run', 'ask:escalation'],
    dangerous: ['ask:dangerous', 'ask:dangerous'],
    other: ['run', 'ask:escalation'],
  },
  never: {
    'known-safe': ['run', 'refuse'],
    'known-safe script': ['run', 'refuse'],
    dangerous: ['refuse', 'refuse'],
    other: ['run', 'refuse'],
  },
};

const cases = Object.entries(IN_SANDBOX).flatMap(([policy, kinds]) =>
  Object.entries(kinds).flatMap(([kind, [inside, escalated]]) => [
    { policy, kind, permissions: 'use_default', expected: inside },
    { policy, kind, permissions: 'require_escalated', expected: escalated },
  ]),
) as { policy: ApprovalPolicy; kind: Kind; permissions: SandboxPermissions; expected: string }[];

describe('assess in the sandbox', () => {
  it.each(cases)('$policy, $kind, $permissions: $expected', ({ policy, kind, permissions, expected }) => {
    const assessment = assess(policy, { argv: COMMANDS[kind], permissions, sandboxed: true });
    expect(verdict(assessment)).toBe(expected);
    if (assessment.action !== 'refuse') expect(assessment.escalated).toBe(permissions === 'require_escalated');
  });

  it('never lets a known-safe command leave the sandbox unasked, whatever it is', () => {
    const knownSafe = [['ls', '/root'], ['cat', '/etc/shadow'], ['find', '/'], bash('cd /tmp/x && git log -p')];
    for (const argv of knownSafe) {
      expect(assess('on-request', { argv, permissions: 'use_default', sandboxed: true }).action).toBe('run');
      expect(assess('on-request', { argv, permissions: 'require_escalated', sandboxed: true })).toEqual({
        action: 'ask',
        escalated: true,
        reason: 'escalation',
      });
    }
  });

  it('refuses under never with a message that says how to do it instead', () => {
    const refused = assess('never', { argv: ['git', 'status'], permissions: 'require_escalated', sandboxed: true });
    expect(refused).toMatchObject({ action: 'refuse', message: expect.stringMatching(/policy is `never`/) });
  });
});

describe('assess without a sandbox', () => {
  const host = (policy: ApprovalPolicy, argv: readonly string[], permissions: SandboxPermissions = 'use_default') =>
    verdict(assess(policy, { argv, permissions, sandboxed: false }));

  it('treats a request to leave the sandbox as an ordinary call: there is none to leave', () => {
    expect(host('on-request', COMMANDS.other, 'require_escalated')).toBe('run');
    expect(assess('on-request', { argv: ['ls'], permissions: 'require_escalated', sandboxed: false })).toEqual({
      action: 'run',
      escalated: false,
    });
  });

  it('under untrusted, asks for git, which a repository it reads can make run programs', () => {
    expect(host('untrusted', ['git', 'status'])).toBe('ask:untrusted');
    expect(host('untrusted', COMMANDS['known-safe script'])).toBe('ask:untrusted');
    expect(host('untrusted', ['ls', '-la'])).toBe('run');
  });

  it('still asks for dangerous commands, and refuses them under never', () => {
    expect(host('on-request', COMMANDS.dangerous)).toBe('ask:dangerous');
    expect(host('never', COMMANDS.dangerous)).toBe('refuse');
  });

  it('with approvals off (no policy), runs everything as asked', () => {
    expect(verdict(assess(undefined, { argv: COMMANDS.dangerous, permissions: 'use_default', sandboxed: false }))).toBe(
      'run',
    );
  });
});

describe('ApprovalCache', () => {
  const script = (indent: string) =>
    bash(["python3 - <<'EOF'", 'for i in range(2):', "    print('loop')", `${indent}print('done')`, 'EOF'].join('\n'));
  const run = (argv: readonly string[], cwd = '/w', escalated = true, more: Partial<ApprovedRun> = {}) => ({
    argv,
    cwd,
    escalated,
    tty: false,
    ...more,
  });

  it('remembers the exact run: argv, working directory, escalation, terminal and place', () => {
    const cache = new ApprovalCache();
    cache.add(run(script('')));
    expect(cache.has(run(script('')))).toBe(true);
  });

  it('does not cover the same script indented differently inside its heredoc', () => {
    const cache = new ApprovalCache();
    cache.add(run(script('')));
    expect(cache.has(run(script('    ')))).toBe(false);
  });

  it('does not cover any other difference in blanks, shell, flags, directory, escalation, terminal or place', () => {
    const cache = new ApprovalCache();
    cache.add(run(bash('rm -rf build'), '/w', false));
    for (const other of [
      run(bash('rm  -rf build'), '/w', false),
      run(bash('rm -rf build '), '/w', false),
      run(['/usr/bin/bash', '-c', 'rm -rf build'], '/w', false),
      run(['/usr/bin/zsh', '-lc', 'rm -rf build'], '/w', false),
      run(['/tmp/x/bash', '-lc', 'rm -rf build'], '/w', false),
      run(['rm', '-rf', 'build'], '/w', false),
      run(bash('rm -rf build'), '/w/sub', false),
      run(bash('rm -rf build'), '/w', true),
      run(bash('rm -rf build'), '/w', false, { tty: true }),
      run(bash('rm -rf build'), '/w', false, { location: 'docker://web-1' }),
    ]) {
      expect(cache.has(other), JSON.stringify(other)).toBe(false);
    }
  });

  it('keeps arguments apart: one argument with a space is not two', () => {
    const cache = new ApprovalCache();
    cache.add(run(['echo', 'a b']));
    expect(cache.has(run(['echo', 'a', 'b']))).toBe(false);
    expect(cache.has(run(['echo', 'a b']))).toBe(true);
  });
});

describe('deniedMessage', () => {
  it("passes on a person's no with their words", () => {
    expect(deniedMessage({ decision: 'deny', reason: ' not today ' })).toBe(
      'Not run: the user denied this command. They said: not today',
    );
    expect(deniedMessage({ decision: 'deny' })).toBe('Not run: the user denied this command.');
  });

  it('says plainly that nobody approved a request the client declined or cancelled without a decision', () => {
    const declined = deniedMessage({ decision: 'deny', unanswered: 'decline' });
    expect(declined).toMatch(/^Not run: nobody approved this command\. The client declined the approval request /);
    expect(declined).toContain('`codex exec` declines');
    expect(declined).toMatch(/Do it without this command, or ask the user to run it\.$/);
    expect(declined).not.toMatch(/the user (denied|chose)|They said/);
    const cancelled = deniedMessage({ decision: 'deny', unanswered: 'cancel' }, true);
    expect(cancelled).toMatch(/^Not run: nobody approved this command\. The client cancelled the approval request /);
    expect(cancelled).toContain('`claude -p` cancels');
    expect(cancelled).toMatch(/Do it without leaving the sandbox, or ask the user to run it\.$/);
  });
});
