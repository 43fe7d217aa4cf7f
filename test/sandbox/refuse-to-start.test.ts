import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findTrustedExecutable } from '../../src/util/executable.js';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';
import { CLI, cleanEnv, runToEnd } from '../mcp/cli-process.js';

// A server never falls back to running commands unsandboxed: without a working bubblewrap it does not start. The
// server looks for bubblewrap in the system's folders only, whatever its PATH says, so the machine is changed for it
// alone: in a mount namespace of its own, the system's bwrap is covered by /dev/null (no program there) or by a
// bwrap that fails.
describe.skipIf(CANNOT_SWITCH_USER !== undefined)('mcp and serve without a working bubblewrap', () => {
  const bin = mkdtempSync(join(tmpdir(), 'unified-exec-no-bwrap-'));
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const bwrap = findTrustedExecutable('bwrap') ?? '/usr/bin/bwrap';
  /** `node args…` with the system's bwrap covered by `file`. */
  const covered = (file: string, args: string[]) =>
    runToEnd(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        'mount --bind "$1" "$2" && shift 2 && exec "$@"',
        'cover',
        file,
        bwrap,
        process.execPath,
        ...args,
      ],
      { env: cleanEnv() },
    );
  const failingBwrap = () => {
    // A bwrap that cannot create namespaces, as on a kernel with user namespaces turned off.
    const path = join(bin, 'bwrap');
    writeFileSync(path, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    return path;
  };

  it('refuses to start when bwrap is not installed, and says how to fix it or opt out', async () => {
    for (const command of ['mcp', 'serve'] as const) {
      const args = command === 'mcp' ? [CLI, 'mcp'] : [CLI, 'serve', '--port', '0'];
      const r = await covered('/dev/null', args);
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
    const r = await covered(failingBwrap(), [CLI, 'mcp', '--sandbox', 'read-only']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start with --sandbox read-only: bubblewrap cannot create namespaces here \(bwrap: No permissions to create new namespace\)/,
    );
  });

  it('starts when danger-full-access is chosen knowingly, and says so', async () => {
    const r = await covered('/dev/null', [CLI, 'mcp', '--sandbox', 'danger-full-access']);
    expect(r.code).toBe(0); // stdin closed: the client is gone at once
    expect(r.stderr).toContain('Sandbox: danger-full-access (no sandbox)');
  });
});
