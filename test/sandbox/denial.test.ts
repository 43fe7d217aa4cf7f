import { describe, expect, it } from 'vitest';
import { describeDenial, detectDenial } from '../../src/sandbox/denial.js';
import { sandboxPolicy } from './sandbox-helpers.js';

const policy = sandboxPolicy;

describe('detectDenial', () => {
  it('finds a refused write by the kernel message, under read-only and workspace-write', () => {
    const output = 'bash: line 1: /root/x: Read-only file system\n';
    for (const mode of ['read-only', 'workspace-write'] as const) {
      expect(detectDenial(policy({ mode }), 1, output)).toEqual({
        kind: 'write',
        evidence: 'bash: line 1: /root/x: Read-only file system',
      });
    }
  });

  it("finds a Landlock refusal (EACCES) only on the Landlock backend, where it is the sandbox's", () => {
    const output = 'bash: line 1: new.txt: Permission denied\n';
    expect(detectDenial(policy({ backend: 'landlock' }), 1, output)).toEqual({
      kind: 'write',
      evidence: 'bash: line 1: new.txt: Permission denied',
    });
    // Elsewhere EACCES is a file's mode, not the sandbox.
    expect(detectDenial(policy({ backend: 'bwrap' }), 1, output)).toBeUndefined();
    expect(detectDenial(policy(), 1, output)).toBeUndefined();
    // A socket the Landlock domain refuses (TCP with the network off) is the network's.
    const bash = '/bin/bash: connect: Permission denied';
    expect(detectDenial(policy({ backend: 'landlock' }), 1, bash)?.kind).toBe('network');
  });

  it('finds a failed connection only while the network is off', () => {
    const curl = "curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server";
    expect(detectDenial(policy(), 7, curl)?.kind).toBe('network');
    expect(detectDenial(policy(), 6, 'curl: (6) Could not resolve host: example.com')?.kind).toBe('network');
    expect(detectDenial(policy({ network: 'on' }), 7, curl)).toBeUndefined();
  });

  it("finds the seccomp filter's EPERM only on a socket call, while the network is off", () => {
    const bash =
      '/bin/bash: socket: Operation not permitted\n/bin/bash: line 1: /dev/tcp/127.0.0.1/9: Operation not permitted';
    expect(detectDenial(policy(), 1, bash)).toEqual({
      kind: 'network',
      evidence: '/bin/bash: socket: Operation not permitted',
    });
    expect(detectDenial(policy(), 1, 'Error: connect EPERM 127.0.0.1:80 - Local (undefined:undefined)')?.kind).toBe(
      'network',
    );
    expect(
      detectDenial(policy(), 1, 'urllib.error.URLError: <urlopen error [Errno 1] Operation not permitted>')?.kind,
    ).toBe('network');
    expect(detectDenial(policy({ network: 'on' }), 1, bash)).toBeUndefined();
    expect(detectDenial(policy(), 1, 'kill: (1) - Operation not permitted')).toBeUndefined();
  });

  it('names a domain the allowlist proxy blocked', () => {
    const out = 'unified-exec sandbox: network access to example.org is blocked (not in the domain allowlist: a.com)';
    expect(detectDenial(policy({ allowedDomains: ['a.com'] }), 22, out)?.kind).toBe('domain');
  });

  it('is never fooled by words: "sandbox", "permission denied", "denied" without a denial', () => {
    const noisy = [
      'Permission denied (publickey).',
      'sandbox: permission denied',
      'running in a sandbox; access denied by policy',
      'EACCES: permission denied, open /root/.ssh/id_rsa',
      'error: operation not permitted',
    ].join('\n');
    expect(detectDenial(policy(), 1, noisy)).toBeUndefined();
    expect(detectDenial(policy({ mode: 'read-only' }), 255, noisy)).toBeUndefined();
  });

  it('needs a failure, and a sandbox: a success or danger-full-access is never a denial', () => {
    const output = 'echo: Read-only file system\nConnection refused';
    expect(detectDenial(policy(), 0, output)).toBeUndefined();
    expect(detectDenial(policy(), undefined, output)).toBeUndefined();
    expect(detectDenial(policy({ mode: 'danger-full-access' }), 1, output)).toBeUndefined();
    expect(detectDenial(undefined, 1, output)).toBeUndefined();
  });
});

describe('describeDenial', () => {
  it('says what happened and what the model can do', () => {
    const denial = { kind: 'write' as const, evidence: 'touch: cannot touch /x: Read-only file system' };
    expect(describeDenial(denial, 'ask')).toBe(
      'Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them (touch: cannot touch /x: Read-only file system). To run it outside the sandbox, call again with sandbox_permissions "require_escalated" and a justification.',
    );
    expect(describeDenial(denial, 'unavailable')).toContain('not available (approval policy never)');
    expect(describeDenial({ kind: 'network', evidence: 'x'.repeat(500) }, 'ask').length).toBeLessThan(400);
  });
});
