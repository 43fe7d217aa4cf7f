import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useManagers } from '../helpers/manager.js';
import type { SandboxBackend } from '../../src/sandbox/policy.js';
import { BACKENDS, REFUSED, useLoopbackServer, useWorkspace } from './sandbox-helpers.js';

// The policy table of ../shared/codex-reference/SANDBOX.md (what `codex sandbox` does on this machine kind), run
// through unified-exec: same policy, same command, same exit code. Each probe is a `bash -c` script as in the
// reference's matrix.sh, run in a fresh git workspace under /var/tmp.
const HOME_PROBE = join(homedir(), `.unified-exec-sbx-probe-${process.pid}.txt`);
const TMP_PROBE = `/tmp/unified-exec-sbx-probe-${process.pid}.txt`;
const BASH_FAST = { shell: '/bin/bash', login: false, yieldTimeMs: 20_000 } as const;

const probes = (port: number): Record<string, string> => ({
  'write-cwd': 'echo x > sbx-probe.txt && echo wrote',
  'write-tmp': `echo x > ${TMP_PROBE} && echo wrote`,
  'write-home': `echo x > ${HOME_PROBE} && echo wrote`,
  'write-cwd-.git': 'echo x > .git/sbx-probe.txt && echo wrote',
  'read-passwd': 'head -n1 /etc/passwd',
  'curl-loopback': `curl -sS -o /dev/null -w 'http %{http_code}' http://127.0.0.1:${port}/`,
  'py-connect-loopback': `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), 2); print('connected')"`,
});

// Exit codes from SANDBOX.md's Results table.
const TABLE: Record<string, Record<string, number>> = {
  'read-only': {
    'write-cwd': 1,
    'write-tmp': 1,
    'write-home': 1,
    'write-cwd-.git': 1,
    'read-passwd': 0,
    'curl-loopback': 7,
    'py-connect-loopback': 1,
  },
  'workspace-write': {
    'write-cwd': 0,
    'write-tmp': 0,
    'write-home': 1,
    'write-cwd-.git': 1,
    'read-passwd': 0,
    'curl-loopback': 7,
    'py-connect-loopback': 1,
  },
  'workspace-write+net': {
    'write-cwd': 0,
    'write-tmp': 0,
    'write-home': 1,
    'write-cwd-.git': 1,
    'read-passwd': 0,
    'curl-loopback': 0,
    'py-connect-loopback': 0,
  },
  'danger-full-access': {
    'write-cwd': 0,
    'write-tmp': 0,
    'write-home': 0,
    'write-cwd-.git': 0,
    'read-passwd': 0,
    'curl-loopback': 0,
    'py-connect-loopback': 0,
  },
};

describe.each(BACKENDS)('the policy table of codex sandbox, through exec_command, on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  else table(backend);
});

function table(backend: SandboxBackend): void {
  const manager = useManagers();
  const ws = useWorkspace();
  const server = useLoopbackServer();

  const cleanup = () => {
    for (const path of [join(ws.dir, 'sbx-probe.txt'), join(ws.dir, '.git/sbx-probe.txt'), TMP_PROBE, HOME_PROBE]) {
      rmSync(path, { force: true });
    }
  };

  for (const column of Object.keys(TABLE)) {
    const expected = TABLE[column]!;
    it(`${column}: every probe exits as under codex sandbox`, { timeout: 60_000 }, async () => {
      const m = manager({
        cwd: ws.dir,
        sandboxBackend: backend,
        sandbox: column === 'workspace-write+net' ? 'workspace-write' : (column as 'read-only'),
        network: column === 'workspace-write+net' ? 'on' : 'off',
        approvalPolicy: 'never',
      });
      const got: Record<string, number | undefined> = {};
      const outputs: Record<string, string> = {};
      try {
        for (const [name, script] of Object.entries(probes(server.port))) {
          const r = await m.execCommand({ command: script, shell: '/bin/bash', login: false, yieldTimeMs: 20_000 });
          got[name] = r.exitCode;
          outputs[name] = r.output;
        }
      } finally {
        cleanup();
      }
      expect(got).toEqual(expected);
      // The denied writes say what the kernel said, as under codex sandbox.
      for (const [name, code] of Object.entries(expected)) {
        if (name.startsWith('write') && code === 1) expect(outputs[name]).toContain(REFUSED[backend]);
        if (name.startsWith('write') && code === 0) expect(outputs[name]).toContain('wrote');
      }
      if (expected['curl-loopback'] === 0) expect(outputs['curl-loopback']).toContain('http 200');
      expect(outputs['read-passwd']).toMatch(/^root:x:0:0:/);
    });
  }

  it('exit codes pass through the sandbox: exit 42, and 143 for SIGTERM', async () => {
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', sandboxBackend: backend });
    expect((await m.execCommand({ command: 'exit 42', shell: '/bin/bash', login: false })).exitCode).toBe(42);
    expect((await m.execCommand({ command: 'kill -TERM $$', shell: '/bin/bash', login: false })).exitCode).toBe(143);
  });

  it('a missing .agents or .codex inside the workspace cannot be created, and none is left behind', async () => {
    const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', sandboxBackend: backend });
    const r = await m.execCommand({
      command: 'mkdir .agents/x; echo x > .codex/f; mkdir -p .aws/y; echo done',
      shell: '/bin/bash',
      login: false,
    });
    expect(r.output).toContain('done');
    // bubblewrap refuses all three at the mask; on Landlock the first two find no folder to write in (nothing may make
    // one), and the third is refused.
    expect(r.output.match(new RegExp(REFUSED[backend], 'g'))?.length).toBe(backend === 'bwrap' ? 3 : 1);
    // bubblewrap makes empty mount points on the host for the masks; they go with the last session using them (just
    // after its exit is answered).
    await vi.waitFor(() => {
      for (const name of ['.agents', '.codex', '.aws']) expect(existsSync(join(ws.dir, name))).toBe(false);
    });
  });
}

describe.each(BACKENDS)('a writable root with thousands of entries, on $backend', ({ backend, skip }) => {
  const manager = useManagers();
  const ws = useWorkspace();
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  // Landlock grants such a root entry by entry: thousands of grants for the launcher, handed over in a file.
  else
    it('starts terminal and pipe sessions there, and writes in it', async () => {
      const root = mkdtempSync('/var/tmp/unified-exec-crowded-');
      try {
        for (let i = 0; i < 3000; i++) writeFileSync(join(root, `f${i}`), '');
        const m = manager({ cwd: ws.dir, sandboxBackend: backend, writableRoots: [root], approvalPolicy: 'never' });
        for (const tty of [true, false]) {
          const r = await m.execCommand({ command: `echo x > ${root}/made && cat ${root}/made`, ...BASH_FAST, tty });
          expect(r.exitCode, r.output).toBe(0);
          expect(r.output).toContain('x');
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
});
