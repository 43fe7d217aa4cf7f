import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runToEnd } from '../mcp/cli-process.js';

// A server never falls back to running commands unsandboxed: without a working bubblewrap it does not start.
describe('mcp and serve without a working bubblewrap', () => {
  const bin = mkdtempSync(join(tmpdir(), 'unified-exec-no-bwrap-'));
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const noBwrap = { PATH: bin }; // node itself is started by its full path
  const failingBwrap = () => {
    // A bwrap that cannot create namespaces, as on a kernel with user namespaces turned off.
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    return { PATH: `${bin}:/usr/bin:/bin` };
  };

  it('refuses to start when bwrap is not installed, and says how to fix it or opt out', async () => {
    for (const command of ['mcp', 'serve'] as const) {
      const args = command === 'mcp' ? [CLI, 'mcp'] : [CLI, 'serve', '--port', '0'];
      const r = await runToEnd(process.execPath, args, { env: cleanEnv(noBwrap) });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'unified-exec: cannot start with --sandbox workspace-write: bubblewrap (bwrap) is not installed.',
      );
      expect(r.stderr).toContain('apt-get install bubblewrap');
      expect(r.stderr).toContain('`--sandbox danger-full-access`');
      expect(r.stdout).toBe('');
    }
  });

  it('refuses to start when bwrap cannot create namespaces', async () => {
    const r = await runToEnd(process.execPath, [CLI, 'mcp', '--sandbox', 'read-only'], {
      env: cleanEnv(failingBwrap()),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start with --sandbox read-only: bubblewrap cannot create namespaces here \(bwrap: No permissions to create new namespace\)/,
    );
  });

  it('starts when danger-full-access is chosen knowingly, and says so', async () => {
    const r = await runToEnd(process.execPath, [CLI, 'mcp', '--sandbox', 'danger-full-access'], {
      env: cleanEnv(noBwrap),
    });
    expect(r.code).toBe(0); // stdin closed: the client is gone at once
    expect(r.stderr).toContain('Sandbox: danger-full-access (no sandbox)');
  });
});
