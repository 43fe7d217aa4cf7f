import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/policy.js';
import { approvalMessage } from '../../src/mcp/elicit-approval.js';

// The approval forms docs/security.md shows are the text approvalMessage writes for the same requests: the doc cannot
// go stale. The requests are those the gate builds for the doc's call (an escalated `npm test` with `shell: "zsh"`
// and `workdir: "web"`, and the same call's on-failure question), with this doc's paths.

const SECURITY = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');

/** The ```text block right after `<!-- approval-form: NAME -->`. */
function formInDoc(name: string): string {
  const match = new RegExp(`<!-- approval-form: ${name} -->\\n\`\`\`text\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(SECURITY);
  if (!match) throw new Error(`docs/security.md has no form marked <!-- approval-form: ${name} -->`);
  return match[1]!;
}

const planned = {
  command: 'npm test',
  argv: ['/usr/bin/zsh', '-lc', 'npm test'],
  cwd: '/home/me/project/web',
  tty: false,
  shell: { login: true },
  programs: [{ name: 'npm', path: '/usr/bin/npm' }],
  escalated: true,
} satisfies Partial<ApprovalRequest>;

describe('the approval forms of docs/security.md', () => {
  it('shows the escalation form as approvalMessage writes it', () => {
    const request: ApprovalRequest = {
      ...planned,
      reason: 'escalation',
      justification: 'the tests start a server on port 8080',
    };
    expect(formInDoc('escalation')).toBe(approvalMessage(request));
  });

  it("shows on-failure's question as approvalMessage writes it", () => {
    const request: ApprovalRequest = {
      ...planned,
      reason: 'sandbox-denied',
      denial: "Error: EROFS: read-only file system, mkdir '/home/me/.npm/_cacache'",
    };
    expect(formInDoc('on-failure')).toBe(approvalMessage(request));
  });
});
