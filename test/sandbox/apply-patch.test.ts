import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ManagerOptions } from '../../src/index.js';
import { callTool } from '../../src/tools/run-tool.js';
import { connectApprovalClient } from '../helpers/approval-client.js';
import { useManagers } from '../helpers/manager.js';
import { textOf } from '../reliability/harness.js';
import { NO_SANDBOX, useWorkspace } from './sandbox-helpers.js';
import { titled } from '../helpers/needs.js';

// Patches typed into exec_command the way models trained on Codex type them, applied for real in the sandbox.

const patchCommand = (body: string) => `apply_patch <<'EOF'\n*** Begin Patch\n${body}\n*** End Patch\nEOF`;
/** Times vary; the rest of a reply is Codex's, byte for byte. */
const normalized = (text: string) => text.replace(/Wall time: [\d.]+ seconds/g, 'Wall time: T seconds');
const applied = (...lines: string[]) =>
  `Wall time: T seconds\nOutput:\nExit code: 0\nWall time: T seconds\nOutput:\nSuccess. Updated the following files:\n${lines.map((l) => `${l}\n`).join('')}`;

describe.skipIf(NO_SANDBOX !== undefined)(titled('apply_patch typed into exec_command', NO_SANDBOX), () => {
  const ws = useWorkspace();
  const newManager = useManagers();
  let outside = '';
  beforeAll(() => {
    outside = mkdtempSync('/var/tmp/unified-exec-patch-outside-');
  });
  afterAll(() => rmSync(outside, { recursive: true, force: true }));
  const exec = async (cmd: string, options: ManagerOptions = {}) => {
    const manager = newManager({ cwd: ws.dir, sandbox: 'workspace-write', ...options });
    return callTool(manager, 'exec_command', { cmd });
  };
  const file = (name: string) => join(ws.dir, name);

  it('adds a file, and answers as Codex does', async () => {
    const r = await exec(patchCommand('*** Add File: notes/hello.txt\n+hello\n+world'));
    expect(r.isError).toBe(false);
    expect(normalized(r.text)).toBe(applied('A notes/hello.txt'));
    expect(readFileSync(file('notes/hello.txt'), 'utf8')).toBe('hello\nworld\n');
  });

  it('updates with @@ context headers, several chunks and an end-of-file chunk; deletes; moves', async () => {
    writeFileSync(
      file('code.py'),
      'class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n# end\n',
    );
    writeFileSync(file('gone.txt'), 'bye\n');
    writeFileSync(file('old-name.txt'), 'one\ntwo\n');
    const r = await exec(
      patchCommand(
        [
          '*** Update File: code.py',
          '@@ class B:',
          '     def f(self):',
          '-        return 1',
          '+        return 2',
          '@@',
          '-# end',
          '+# the end',
          '*** End of File',
          '*** Delete File: gone.txt',
          '*** Update File: old-name.txt',
          '*** Move to: moved/new-name.txt',
          '@@',
          ' one',
          '-two',
          '+TWO',
        ].join('\n'),
      ),
    );
    expect(normalized(r.text)).toBe(applied('M code.py', 'M moved/new-name.txt', 'D gone.txt'));
    expect(readFileSync(file('code.py'), 'utf8')).toBe(
      'class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 2\n# the end\n',
    );
    expect(existsSync(file('gone.txt'))).toBe(false);
    expect(existsSync(file('old-name.txt'))).toBe(false);
    expect(readFileSync(file('moved/new-name.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('applies in the folder of a leading cd', async () => {
    mkdirSync(file('sub'), { recursive: true });
    const r = await exec(`cd sub && ${patchCommand('*** Add File: in-sub.txt\n+x')}`);
    expect(normalized(r.text)).toBe(applied('A in-sub.txt'));
    expect(readFileSync(file('sub/in-sub.txt'), 'utf8')).toBe('x\n');
  });

  it('refuses a chunk that does not fit, naming the file and the lines, and writes nothing', async () => {
    writeFileSync(file('fixed.txt'), 'a\nb\n');
    const r = await exec(patchCommand('*** Add File: not-made.txt\n+x\n*** Update File: fixed.txt\n@@\n-nothere\n+x'));
    expect(r).toMatchObject({ isError: true, code: 'PATCH_REJECTED' });
    expect(r.text).toBe(
      `apply_patch verification failed: Failed to find expected lines in ${file('fixed.txt')}:\nnothere`,
    );
    expect(readFileSync(file('fixed.txt'), 'utf8')).toBe('a\nb\n');
    expect(existsSync(file('not-made.txt'))).toBe(false);
    const missing = await exec(patchCommand('*** Update File: missing.txt\n@@\n-a\n+b'));
    expect(missing.text).toBe(
      `apply_patch verification failed: Failed to read file to update ${file('missing.txt')}: No such file or directory (os error 2)`,
    );
    const bad = await exec(patchCommand('bogus'));
    expect(bad.text).toMatch(
      /^apply_patch verification failed: invalid hunk at line 2, 'bogus' is not a valid hunk header/,
    );
  });

  describe('under the sandbox', () => {
    afterEach(() => rmSync(join(outside, 'x.txt'), { force: true }));

    it('refuses a patch that writes outside the workspace, as a sandboxed write, and writes none of it', async () => {
      const r = await exec(patchCommand(`*** Add File: inside-first.txt\n+a\n*** Add File: ${outside}/x.txt\n+x`));
      expect(r.isError).toBe(false);
      expect(normalized(r.text)).toBe(
        `Exit code: 1\nWall time: T seconds\nOutput:\nFailed to write file ${outside}/x.txt: Read-only file system (os error 30)\n` +
          `Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them (Failed to write file ${outside}/x.txt: Read-only file system (os error 30)). To run it outside the sandbox, call again with sandbox_permissions "require_escalated" and a justification.\n`,
      );
      expect(existsSync(join(outside, 'x.txt'))).toBe(false);
      expect(existsSync(file('inside-first.txt'))).toBe(false);
    });

    it('holds against a symlink in the workspace that points outside it', async () => {
      symlinkSync(outside, file('escape'));
      const r = await exec(patchCommand('*** Add File: escape/x.txt\n+x'));
      expect(r.text).toContain('Read-only file system');
      expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    });

    it('keeps .git and .codex read-only inside the workspace', async () => {
      for (const path of ['.git/config-by-patch', '.codex/config.toml']) {
        const r = await exec(patchCommand(`*** Add File: ${path}\n+x`));
        expect(r.text).toContain(
          'Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them',
        );
        expect(existsSync(file(path))).toBe(false);
      }
    });

    it('read-only refuses every patch; danger-full-access applies anywhere', async () => {
      const r = await exec(patchCommand('*** Add File: ro.txt\n+x'), { sandbox: 'read-only' });
      expect(r.text).toMatch(/^Exit code: 1\n.*\nOutput:\nFailed to write file .*ro\.txt: Read-only file system/s);
      expect(existsSync(file('ro.txt'))).toBe(false);
      const free = await exec(patchCommand(`*** Add File: ${outside}/x.txt\n+x`), { sandbox: 'danger-full-access' });
      expect(normalized(free.text)).toBe(applied(`A ${outside}/x.txt`));
    });

    it('on-failure: asks, and once approved applies the patch outside the sandbox', async () => {
      const asked: string[] = [];
      const r = await exec(patchCommand(`*** Add File: ${outside}/x.txt\n+x`), {
        approvalPolicy: 'on-failure',
        onApproval: async (request) => {
          asked.push(request.command);
          return { decision: 'approve' };
        },
      });
      expect(asked).toHaveLength(1);
      expect(r.text).toMatch(/Success\. Updated the following files:\nA .*x\.txt\nRan again outside the sandbox/);
      expect(readFileSync(join(outside, 'x.txt'), 'utf8')).toBe('x\n');
    });
  });
});

describe.skipIf(NO_SANDBOX !== undefined)(
  titled('apply_patch through the real MCP server, default sandbox', NO_SANDBOX),
  () => {
    const ws = useWorkspace();
    let client: { client: Client; call: (name: string, args: Record<string, unknown>) => Promise<unknown> };
    beforeAll(async () => {
      client = await connectApprovalClient(ws.dir);
    });
    afterAll(() => client.client.close());
    const call = async (cmd: string) =>
      textOf((await client.call('exec_command', { cmd })) as Parameters<typeof textOf>[0]);

    it('applies a patch in the workspace, and refuses one outside it', async () => {
      expect(normalized(await call(patchCommand('*** Add File: a.txt\n+one\n+two')))).toBe(applied('A a.txt'));
      mkdirSync(join(ws.dir, 'sub'));
      expect(normalized(await call(`cd sub && ${patchCommand('*** Add File: b.txt\n+b')}`))).toBe(applied('A b.txt'));
      expect(normalized(await call(patchCommand('*** Update File: a.txt\n@@\n one\n-two\n+TWO')))).toBe(
        applied('M a.txt'),
      );
      expect(readFileSync(join(ws.dir, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
      const target = `/var/tmp/unified-exec-patch-mcp-${process.pid}.txt`;
      const refused = await call(patchCommand(`*** Add File: ${target}\n+x`));
      expect(refused).toContain(
        'Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them',
      );
      expect(existsSync(target)).toBe(false);
    });
  },
);
