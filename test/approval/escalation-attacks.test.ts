// Two attacks on the approval layer, run against the real server: the built CLI's `mcp` over stdio, its defaults
// (workspace-write, on-request), and the real MCP SDK client with and without elicitation.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectApprovalClient, decide, declineAll, type Answer } from '../helpers/approval-client.js';
import { textOf } from '../reliability/harness.js';
import { BACKENDS, useWorkspace } from '../sandbox/sandbox-helpers.js';

describe.each(BACKENDS)('attacks on approvals through the real MCP server, on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  else attacks(['--sandbox-backend', backend]);
});

function attacks(backendArgs: string[]): void {
  const ws = useWorkspace();
  const clients: { client: Client }[] = [];
  const open = async (answer?: Answer) => {
    const c = await connectApprovalClient(ws.dir, answer, backendArgs);
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.client.close()));
  });

  describe('a known-safe command that asks to leave the sandbox (git status in a planted repository)', () => {
    // The repository sits in /tmp; its core.fsmonitor hook writes a marker in a directory of its own under
    // /var/tmp, outside every writable root of the sandbox: the marker can only appear if git ran unsandboxed.
    const planted = { root: '', repo: '', markers: '', marker: '' };
    beforeAll(() => {
      planted.root = mkdtempSync('/tmp/unified-exec-planted-');
      planted.repo = join(planted.root, 'repo');
      planted.markers = mkdtempSync('/var/tmp/unified-exec-marker-');
      mkdirSync(planted.repo);
      execFileSync('git', ['init', '-q', planted.repo]);
      const hook = join(planted.root, 'fsmonitor-hook');
      writeFileSync(hook, `#!/bin/sh\ntouch '${planted.markers}/ran-unsandboxed'\n`);
      chmodSync(hook, 0o755);
      execFileSync('git', ['-C', planted.repo, 'config', 'core.fsmonitor', hook]);
      planted.marker = join(planted.markers, 'ran-unsandboxed');
    });
    afterEach(() => rmSync(planted.marker, { force: true }));
    afterAll(() => {
      rmSync(planted.root, { recursive: true, force: true });
      rmSync(planted.markers, { recursive: true, force: true });
    });
    const gitStatusEscalated = () => ({
      cmd: 'git status',
      workdir: planted.repo,
      login: false,
      sandbox_permissions: 'require_escalated',
      justification: 'check the repository',
    });

    it('asks, and when the person declines, git does not run and the reply says so', async () => {
      const c = await open(declineAll);
      const r = await c.call('exec_command', gitStatusEscalated());
      expect(existsSync(planted.marker)).toBe(false);
      expect(c.asked).toHaveLength(1);
      expect((c.asked[0]!.params as { message: string }).message).toContain('outside the sandbox');
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Not run: nobody approved this command\. The client declined/);
    });

    it('with nobody to ask, git does not run and the reply says nobody could be asked', async () => {
      const c = await open();
      const r = await c.call('exec_command', gitStatusEscalated());
      expect(existsSync(planted.marker)).toBe(false);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(
        /Not run: this command needs the user's approval \(it asks to run outside the sandbox\), and nobody can be asked here/,
      );
    });

    it('the shell tool asks too: the argv form of the same call does not run when declined', async () => {
      const c = await connectApprovalClient(ws.dir, declineAll, [...backendArgs, '--tool', 'shell']);
      clients.push(c);
      const r = await c.call('shell', {
        command: ['git', 'status'],
        workdir: planted.repo,
        sandbox_permissions: 'require_escalated',
      });
      expect(existsSync(planted.marker)).toBe(false);
      expect(c.asked).toHaveLength(1);
      expect(textOf(r)).toMatch(/Not run: nobody approved this command\. The client declined/);
    });

    it('when the person approves, it runs outside the sandbox and the hook leaves its marker', async () => {
      const c = await open(decide('approve'));
      const r = await c.call('exec_command', gitStatusEscalated());
      expect(textOf(r)).toContain('Process exited with code 0');
      expect(c.asked).toHaveLength(1);
      expect(existsSync(planted.marker)).toBe(true);
    });

    it('without escalation it runs in the sandbox unasked, and the hook cannot write outside it', async () => {
      const c = await open(declineAll);
      const { sandbox_permissions: _, ...inside } = gitStatusEscalated();
      const r = await c.call('exec_command', inside);
      expect(textOf(r)).toContain('Process exited with code 0');
      expect(c.asked).toHaveLength(0);
      expect(existsSync(planted.marker)).toBe(false);
    });
  });

  describe('approve for this session covers the exact command only', () => {
    /** A python program in a heredoc; `indent` decides whether `print('done')` is inside the loop. */
    const script = (indent: string) =>
      ["python3 - <<'EOF'", 'for i in range(2):', "    print('loop')", `${indent}print('done')`, 'EOF'].join('\n');
    const call = (cmd: string) => ({ cmd, login: false, sandbox_permissions: 'require_escalated' });

    it('asks again for the same script indented differently in its heredoc; not for the identical one', async () => {
      const answers: ElicitResult[] = [{ action: 'accept', content: { decision: 'approve-for-session' } }];
      const c = await open(() => answers.shift() ?? { action: 'decline' });
      const approved = await c.call('exec_command', call(script('')));
      expect(textOf(approved)).toContain('Process exited with code 0');
      expect(textOf(approved)).toMatch(/loop\nloop\ndone/);
      expect(c.asked).toHaveLength(1);

      const reindented = await c.call('exec_command', call(script('    ')));
      expect(c.asked).toHaveLength(2);
      expect(reindented.isError).toBe(true);
      expect(textOf(reindented)).toMatch(/Not run: nobody approved this command\. The client declined/);

      const identical = await c.call('exec_command', call(script('')));
      expect(textOf(identical)).toContain('Process exited with code 0');
      expect(c.asked).toHaveLength(2);
    });
  });
}
