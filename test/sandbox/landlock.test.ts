// The Landlock backend against an attacker: the real server (`mcp --sandbox-backend landlock`, its defaults otherwise:
// workspace-write, network off, on-request), served as root and as nobody, each attack typed as a model would, and
// what it left checked on the host. The classes are those of escapes.test.ts that a sandbox without namespaces must
// still hold (the network and leftover processes run there against both backends); docs/sandbox.md lists what it
// does not cover.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, NOBODY_IDS, removeMountPoint } from '../helpers/nobody.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { NO_LANDLOCK } from './sandbox-helpers.js';

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** A git workspace of `user`'s under /var/tmp with a folder `src` in it, as a project has. */
function workspace(user: ServerUser): string {
  const ws = folderOf(user, mkdtempSync('/var/tmp/ue-landlock-'));
  cleanup.push(ws);
  execFileSync('git', ['init', '-q', ws]);
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'README.md'), 'readme\n');
  folderOf(user, ws); // hands what git and the test made to the user
  return ws;
}

/** A process of `user`'s that sleeps until the test ends it. */
function sleeper(user: ServerUser) {
  const [command, args] =
    user === 'root'
      ? ['sleep', ['300']]
      : ['setpriv', [...NOBODY_IDS, '--', 'env', 'SECRET_OF_HOST=hunter2', 'sleep', '300']];
  return spawn(command as string, args as string[], {
    stdio: 'ignore',
    env: { ...process.env, SECRET_OF_HOST: 'hunter2' },
  });
}

describe.skipIf(NO_LANDLOCK !== undefined && !process.env.CI)('the Landlock backend against an attacker', () => {
  const servers: Server[] = [];
  const owned: { close(): void }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    for (const thing of owned.splice(0)) thing.close();
  });
  const start = async (user: ServerUser, cwd: string) => {
    const server = await startMcp(user, cwd, ['--sandbox-backend', 'landlock']);
    servers.push(server);
    return server;
  };

  describe.each(users)('served as %s', (user) => {
    it('says at start that it runs on Landlock and what that leaves out', async () => {
      const server = await start(user, workspace(user));
      expect(server.stderr()).toMatch(/Sandbox: workspace-write, network off \(writable: .*\), on Landlock, which /);
      expect(server.stderr()).toContain('leaves other processes visible');
    });

    it('writes in the workspace, its top included, and /tmp only; .git, the kept names and the rest are refused', async () => {
      const ws = workspace(user);
      const server = await start(user, ws);
      const tmp = `/tmp/ue-landlock-${process.pid}-${user}`;
      cleanup.push(tmp);
      const out = await server.call(
        [
          'echo in > src/in.txt && echo WROTE_SRC',
          'echo more >> README.md && echo WROTE_README',
          `echo t > ${tmp} && echo WROTE_TMP`,
          'f=$(mktemp) && echo t > "$f" && echo WROTE_MKTEMP && rm "$f"',
          'printf "#!/bin/sh\\necho pwned\\n" > .git/hooks/pre-commit && echo WROTE_HOOK',
          'git config core.hooksPath /tmp && echo WROTE_CONFIG',
          'echo x > new-at-root.txt && echo WROTE_ROOT',
          'mkdir .agents && echo MADE_AGENTS',
          'mv src elsewhere && echo MOVED_SRC',
          'echo x > /etc/ue-landlock && echo WROTE_ETC',
          'echo x > $HOME/ue-landlock && echo WROTE_HOME',
          'exit 1',
        ].join('\n'),
      );
      expect(out).toContain('WROTE_SRC');
      expect(out).toContain('WROTE_README');
      expect(out).toContain('WROTE_MKTEMP');
      // nobody's server keeps its private folder in /tmp (it has no home or runtime folder): /tmp is then granted
      // entry by entry, and the command's temp files go to a folder of its own there, which TMPDIR names.
      if (user === 'root') expect(out).toContain('WROTE_TMP');
      expect(out).toContain('WROTE_ROOT');
      expect(out).toContain('MOVED_SRC');
      expect(out).not.toMatch(/WROTE_HOOK|WROTE_CONFIG|MADE_AGENTS|WROTE_ETC|WROTE_HOME/);
      // The refusal is the sandbox's, and the model is told how to ask for it.
      expect(out).toMatch(
        /Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them .*require_escalated/,
      );
      expect(existsSync(join(ws, '.git/hooks/pre-commit'))).toBe(false);
      expect(readFileSync(join(ws, '.git/config'), 'utf8')).not.toContain('hooksPath');
      expect(readFileSync(join(ws, 'new-at-root.txt'), 'utf8')).toBe('x\n');
      expect(existsSync(join(ws, '.agents'))).toBe(false);
      expect(existsSync(join(ws, 'elsewhere/in.txt'))).toBe(true);
      expect(existsSync('/etc/ue-landlock')).toBe(false);
    });

    it("cannot write the kernel's knobs, and holds no capability (a root server's command is uid 0 without them)", async () => {
      const server = await start(user, workspace(user));
      const out = await server.call(
        [
          'for k in kernel/core_pattern kernel/panic vm/overcommit_memory; do',
          '  v=$(cat /proc/sys/$k); printf "%s\\n" "$v" > /proc/sys/$k && echo "WROTE $k"',
          'done',
          'echo h > /proc/sysrq-trigger && echo WROTE_SYSRQ',
          'grep -E "^Cap(Eff|Prm|Bnd|Amb)" /proc/self/status',
          'echo "uid $(id -u)"',
        ].join('\n'),
      );
      expect(out).not.toMatch(/WROTE/);
      expect(out.match(/Permission denied/g)?.length, out).toBeGreaterThanOrEqual(3);
      // An unprivileged server has no capability to begin with, and cannot empty the bounding set (no_new_privs keeps
      // an exec from gaining any); a root server's command drops it too.
      const sets = user === 'root' ? ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb'] : ['CapEff', 'CapPrm', 'CapAmb'];
      for (const set of sets) expect(out).toMatch(new RegExp(`${set}:\\s+0+\\n`));
      expect(out).toContain(`uid ${user === 'root' ? 0 : 65534}`);
    });

    it('cannot leave a set-user-ID or set-group-ID program behind for other users to run', async () => {
      const ws = workspace(user);
      const server = await start(user, ws);
      const out = await server.call(
        [
          'cp /bin/true src/chmodded && chmod 4755 src/chmodded && echo CHMODDED',
          `python3 -c "import os; os.open('src/created', os.O_CREAT | os.O_WRONLY, 0o6755)" && echo CREATED`,
        ].join('\n'),
      );
      expect(out).not.toMatch(/CHMODDED|CREATED/);
      for (const name of ['chmodded', 'created']) {
        const path = join(ws, 'src', name);
        if (existsSync(path)) expect(statSync(path).mode & 0o6000, name).toBe(0);
      }
    });

    it("cannot read or write another session's terminal, nor take what is typed into it", async () => {
      const server = await start(user, workspace(user));
      const victim = await server.call('tty; read -r secret; echo "got $secret"', {
        tty: true,
        yield_time_ms: 1000,
      });
      const terminal = /\/dev\/pts\/\d+/.exec(victim)?.[0];
      const session = /session ID (\d+)/.exec(victim)?.[1];
      expect(terminal, victim).toBeDefined();
      // The attacker writes fake output into the victim's terminal, and waits to read what is typed there.
      const attack = server.call(
        `echo INJECTED > ${terminal} && echo WROTE; timeout 3 head -c 6 ${terminal} && echo STOLE`,
        { yield_time_ms: 5000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const answer = await server.write(Number(session), 'hunter2\n');
      const out = await attack;
      expect(out).not.toMatch(/WROTE|STOLE|hunter2/);
      expect(out).toContain('Permission denied');
      expect(answer).toContain('got hunter2');
      expect(answer).not.toContain('INJECTED');
    });

    it('cannot signal, trace or read the environment of a process outside its sandbox', async () => {
      const host = sleeper(user);
      owned.push({ close: () => host.kill('SIGKILL') });
      const server = await start(user, workspace(user));
      const out = await server.call(
        [
          `kill -TERM ${host.pid} && echo KILLED`,
          `tr '\\0' '\\n' < /proc/${host.pid}/environ | grep SECRET_OF_HOST && echo READ_ENV`,
          // Reading its memory needs the right to trace it, as a debugger attaching does.
          `head -c 1 /proc/${host.pid}/mem >/dev/null && echo READ_MEM`,
          `python3 -c "import ctypes; print('TRACED' if ctypes.CDLL(None).ptrace(16, ${host.pid}, 0, 0) == 0 else 'NO_TRACE')"`,
        ].join('\n'),
      );
      expect(out).not.toMatch(/KILLED|READ_ENV|hunter2|READ_MEM|TRACED/);
      expect(out).toContain('NO_TRACE');
      expect(host.exitCode).toBeNull();
      expect(host.signalCode).toBeNull();
    });
  });
});
