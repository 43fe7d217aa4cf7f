import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SANDBOX_EXEC_PATH } from '../../src/sandbox/sandbox-exec.js';
import { findTrustedExecutable } from '../../src/util/executable.js';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';
import { CLI, cleanEnv, runToEnd } from '../mcp/cli-process.js';
import { textOf } from '../reliability/harness.js';

// Where users run without bubblewrap, the server picks the Landlock backend and says so; where neither backend works
// it does not start (it never falls back to running commands unsandboxed). The server looks for bubblewrap in the
// system's folders only, whatever its PATH says, so the machine is changed for it alone: in a mount namespace of
// its own an overlay over the system folder holding bwrap deletes it, or in a user namespace of its own no
// further namespace can be made (user.max_user_namespaces 0: Docker's default profile, Ubuntu 24.04's AppArmor rule).
describe.skipIf(CANNOT_SWITCH_USER !== undefined)('mcp and serve where bubblewrap cannot run', () => {
  const bin = mkdtempSync(join(tmpdir(), 'unified-exec-no-bwrap-'));
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(() => {
    for (const dir of [bin, scratch]) rmSync(dir, { recursive: true, force: true });
  });
  const installedBwrap = findTrustedExecutable('bwrap');
  const scratch = mkdtempSync('/var/tmp/ue-no-bwrap-bin-');

  /**
   * `node args…` on a machine without bubblewrap: in a mount namespace of its own, an overlay over the system folder
   * that holds it deletes it (a whiteout: absent, not covered, as on a machine where it was never installed; where it
   * is not installed, nothing changes), or puts `bwrap` in its place; then each of `covers` (a file over a path) is
   * bound. An overlay copies nothing: a hard-linked copy of the folder became a full one (711 MB of /usr/bin, each
   * start) where the scratch folder is on another file system or the folder is a mount, and starts timed out.
   */
  const withoutBwrapArgv = (
    args: string[],
    options: { bwrap?: string; covers?: [string, string][] } = {},
  ): [string, string[]] => {
    const folder = dirname(installedBwrap ?? '/usr/bin/bwrap');
    const covers = options.covers ?? [];
    const binds = covers.map((_, i) => ` && mount --bind "$${2 * i + 5}" "$${2 * i + 6}"`).join('');
    return [
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        [
          't=$(mktemp -d "$1/bin-XXXXXX")',
          'mount -t tmpfs -o mode=0755 no-bwrap "$t"',
          'mkdir "$t/upper" "$t/work"',
          '{ if [ -z "$3" ]; then mknod "$t/upper/bwrap" c 0 0; else cp "$3" "$t/upper/bwrap"; fi; }',
          `mount -t overlay no-bwrap -o "lowerdir=$2,upperdir=$t/upper,workdir=$t/work" "$2"${binds}`,
          `shift ${4 + 2 * covers.length}`,
          'exec "$@"',
        ].join(' && '),
        'without-bwrap',
        scratch,
        folder,
        options.bwrap ?? '',
        'unused',
        ...covers.flat(),
        process.execPath,
        ...args,
      ],
    ];
  };
  /** `node args…` in a user namespace of its own that can make no further one. */
  const noUserNamespacesArgv = (args: string[]): [string, string[]] => [
    'unshare',
    [
      '-U',
      '-r',
      'sh',
      '-c',
      'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"',
      'nouserns',
      process.execPath,
      ...args,
    ],
  ];
  const run = (argv: [string, string[]]) => runToEnd(argv[0], argv[1], { env: cleanEnv() });

  /** The MCP server started by `argv` in `cwd`, with what it wrote to stderr. */
  const connect = async (argv: [string, string[]], cwd: string) => {
    const transport = new StdioClientTransport({
      command: argv[0],
      args: argv[1],
      cwd,
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'no-bwrap', version: '1.0.0' });
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`the server did not start: ${String(error)}\n${stderr}`);
    });
    clients.push(client);
    const call = async (cmd: string) =>
      textOf(await client.callTool({ name: 'exec_command', arguments: { cmd, login: false } }));
    return { call, stderr: () => stderr };
  };

  /** A git workspace with a folder in it, as a project has; removed after the file. */
  const workspaces: string[] = [];
  const workspace = () => {
    const ws = mkdtempSync('/var/tmp/ue-no-bwrap-');
    workspaces.push(ws);
    execFileSync('git', ['init', '-q', ws]);
    mkdirSync(join(ws, 'src'));
    return ws;
  };
  // Only what this run made: another run beside it (another checkout, the no-bwrap pass) has folders of the same name.
  afterAll(() => {
    for (const ws of workspaces) rmSync(ws, { recursive: true, force: true });
  });

  /** What the sandbox must hold on any backend: writes, .git, the network, the kernel's knobs. */
  const holds = async (server: { call(cmd: string): Promise<string> }, ws: string) => {
    const out = await server.call(
      [
        'echo in > src/in.txt && echo WROTE_SRC',
        'echo x > /etc/ue-no-bwrap && echo WROTE_ETC',
        'echo x > .git/hooks/pre-commit && echo WROTE_HOOK',
        'v=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern && echo WROTE_SYSCTL',
        `python3 -c "import socket; socket.create_connection(('1.1.1.1', 53), 2)" 2>/dev/null && echo CONNECTED`,
        '(exec 3<>/dev/tcp/127.0.0.1/1) 2>/dev/null; echo TRIED',
      ].join('\n'),
    );
    expect(out).toContain('WROTE_SRC');
    expect(out).toContain('TRIED');
    expect(out).not.toMatch(/WROTE_ETC|WROTE_HOOK|WROTE_SYSCTL|CONNECTED/);
    expect(existsSync('/etc/ue-no-bwrap')).toBe(false);
    expect(existsSync(join(ws, '.git/hooks/pre-commit'))).toBe(false);
    expect(readFileSync(join(ws, 'src/in.txt'), 'utf8')).toBe('in\n');
  };

  it('without bubblewrap installed, serves sandboxed on Landlock and says why', async () => {
    const ws = workspace();
    const server = await connect(withoutBwrapArgv([CLI, 'mcp']), ws);
    expect(server.stderr()).toContain(
      'unified-exec: the sandbox runs on Landlock: bubblewrap (bwrap) is not installed',
    );
    expect(server.stderr()).toMatch(/Sandbox: workspace-write, network off \(writable: .*\), on Landlock, which /);
    await holds(server, ws);
  });

  it('where user namespaces are off (bubblewrap is there but cannot make them), serves sandboxed on Landlock', async () => {
    const ws = workspace();
    const server = await connect(noUserNamespacesArgv([CLI, 'mcp']), ws);
    // Where bubblewrap is installed it is tried and fails to make a namespace; on a machine without it, it is missing.
    expect(server.stderr()).toMatch(
      findTrustedExecutable('bwrap')
        ? /the sandbox runs on Landlock: bubblewrap cannot create namespaces here \(bwrap: /
        : /the sandbox runs on Landlock: bubblewrap \(bwrap\) is not installed/,
    );
    await holds(server, ws);
  });

  it('refuses to start with --sandbox-backend bwrap where bubblewrap is missing, and says how to fix it', async () => {
    for (const command of ['mcp', 'serve'] as const) {
      const args = command === 'mcp' ? [CLI, 'mcp'] : [CLI, 'serve', '--port', '0'];
      const r = await run(withoutBwrapArgv([...args, '--sandbox-backend', 'bwrap']));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'unified-exec: cannot start with --sandbox workspace-write --sandbox-backend bwrap: bubblewrap (bwrap) is not installed.',
      );
      expect(r.stderr).toContain('apt-get install bubblewrap');
      expect(r.stdout).toBe('');
    }
  });

  it('refuses to start where neither backend can run, with both reasons', async () => {
    // The launcher covered too: neither bubblewrap nor Landlock has it to run through.
    const r = await run(
      withoutBwrapArgv([CLI, 'mcp', '--sandbox', 'read-only'], { covers: [['/dev/null', SANDBOX_EXEC_PATH]] }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start with --sandbox read-only: bubblewrap \(bwrap\) is not installed; and the Landlock backend cannot run either: the sandbox's launcher is missing: /,
    );
    expect(r.stderr).toContain('`--sandbox danger-full-access`');
  });

  it('refuses a bubblewrap that cannot create namespaces when bwrap is asked for', async () => {
    const failing = join(bin, 'bwrap');
    writeFileSync(failing, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const r = await run(
      withoutBwrapArgv([CLI, 'mcp', '--sandbox', 'read-only', '--sandbox-backend', 'bwrap'], { bwrap: failing }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot start with --sandbox read-only --sandbox-backend bwrap: bubblewrap cannot create namespaces here \(bwrap: No permissions to create new namespace\)/,
    );
  });

  it('starts when danger-full-access is chosen knowingly, and says so', async () => {
    const r = await run(withoutBwrapArgv([CLI, 'mcp', '--sandbox', 'danger-full-access']));
    expect(r.code, r.stderr).toBe(0); // stdin closed: the client is gone at once
    expect(r.stderr).toContain('Sandbox: danger-full-access (no sandbox)');
  });
});
