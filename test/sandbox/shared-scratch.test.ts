// Another local user's files in a shared scratch root (a sticky, world-writable /tmp): they must stop no one's
// sandbox, and a sandboxed command must not use them to make /tmp a repository whose config git would run outside.
// The server runs in a mount namespace of its own whose /tmp is a sticky folder the test made: the machine's /tmp
// is never touched.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CANNOT_SWITCH_USER, NOBODY, NOBODY_IDS, removeMountPoint } from '../helpers/nobody.js';
import { titled } from '../helpers/needs.js';
import { ROOT } from '../mcp/cli-process.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { NO_SANDBOX } from './sandbox-helpers.js';

const users: ServerUser[] = ['root', 'nobody'];
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** What the other user plants: a bare repository's beginnings (or all of one) beside the other guarded names. */
const PLANTS = {
  'HEAD alone': 'true',
  'HEAD and objects': 'mkdir objects',
  'a whole bare repository': 'mkdir objects refs',
};

/** What the command tries: complete the repository, give it a config and a hook, or point it at one of its own. */
const ATTACK = [
  'cd /tmp',
  'mkdir refs && echo MADE_REFS',
  'mkdir objects && echo MADE_OBJECTS',
  `printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > config && echo WROTE_CONFIG`,
  'mkdir hooks; echo "touch /tmp/pwned" > hooks/post-checkout && echo PLANTED_HOOK',
  `git init -q --bare elsewhere && git -C elsewhere config core.fsmonitor 'touch /tmp/pwned'`,
  'echo elsewhere > commondir && echo WROTE_COMMONDIR',
  'echo "ref: refs/heads/main" > HEAD && echo WROTE_HEAD',
  'touch .git/x .aws && echo WROTE_GUARDED',
  'git init -q --bare . && echo INITIALISED',
].join('\n');

/**
 * The mount script that lays `tmp` over /tmp. A checkout under /tmp (a clone into `mktemp -d`) would be hidden by it:
 * it is bound aside first, and back at its own path on the new /tmp.
 */
function overTmp(tmp: string): string {
  if (!ROOT.startsWith('/tmp/')) return `mount --bind ${tmp} /tmp`;
  const aside = mkdtempSync('/var/tmp/ue-checkout-aside-');
  cleanup.push(aside);
  return [
    `mount --bind ${ROOT} ${aside}`,
    `mount --bind ${tmp} /tmp`,
    `mkdir -p ${ROOT}`,
    `mount --bind ${aside} ${ROOT}`,
  ].join('\n');
}

describe.skipIf(NO_SANDBOX !== undefined || CANNOT_SWITCH_USER !== undefined)(
  titled("another local user's files in a shared /tmp", NO_SANDBOX ?? CANNOT_SWITCH_USER),
  () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });
    /** What git outside finds in `tmp`, as root: a repository, and a config it would run. */
    const gitSees = (tmp: string) => ({
      repository: spawnSync('git', ['-C', tmp, 'rev-parse', '--git-dir'], { encoding: 'utf8' }).status === 0,
      fsmonitor: spawnSync('git', ['-C', tmp, 'config', 'core.fsmonitor'], { encoding: 'utf8' }).stdout.trim(),
    });

    describe.each(users)('served as %s', (user) => {
      it.each(Object.entries(PLANTS))(
        'plants %s there: the sandbox starts, works, and cannot make it a repository git runs config from',
        async (_, plant) => {
          const tmp = mkdtempSync('/var/tmp/ue-shared-tmp-');
          chmodSync(tmp, 0o1777);
          cleanup.push(tmp);
          const ws = folderOf(user, mkdtempSync('/var/tmp/ue-shared-ws-'));
          cleanup.push(ws);
          // The other user: nobody for a root server, root for nobody's.
          const [shell, ...asOther] = user === 'root' ? ['setpriv', ...NOBODY_IDS, 'sh'] : ['sh'];
          const script = `cd ${tmp} && echo 'ref: refs/heads/main' > HEAD && ${plant} && mkdir .git .agents && touch .aws && ln -s ${ws} .codex`;
          execFileSync(shell!, [...asOther, '-c', script]);
          const planted = gitSees(tmp).repository;

          const server = await startMcp(user, ws, [], {}, overTmp(tmp));
          servers.push(server);
          const out = await server.call(`${ATTACK}\necho ran; touch ${ws}/still-writable /tmp/mine && echo WROTE`);
          expect(out).toContain('ran\nWROTE');
          expect(out).not.toMatch(/MADE_|WROTE_|PLANTED_|INITIALISED/);
          // While a sandbox holds its masks, whose mount points are on the host: empty files, no part of a repository
          // (and git stops at the empty `commondir` of a whole one).
          const running = await server.call('sleep 2', { yield_time_ms: 200 });
          const id = /Process running with session ID (\d+)/.exec(running)?.[1];
          expect(id, running).toBeDefined();
          expect(gitSees(tmp)).toEqual({ repository: false, fsmonitor: '' });
          // Ended of itself (a session ended with its server may leave the mount points to the next one).
          const ended = async () => expect(await server.write(Number(id), '')).toContain('Process exited with code 0');
          await vi.waitFor(ended, { timeout: 10_000 });
          // Then the server removes the mount points it made (not the other user's files).
          await vi.waitFor(() => {
            for (const name of ['config', 'hooks', 'commondir']) expect(existsSync(join(tmp, name)), name).toBe(false);
          });
          expect(existsSync(join(tmp, 'refs'))).toBe(planted);
          expect(gitSees(tmp)).toEqual({ repository: planted, fsmonitor: '' });
          expect(existsSync(join(tmp, 'pwned'))).toBe(false);
        },
      );
    });
  },
);

// Two servers of two users on one scratch root (a shared $TMPDIR): a mask's mount point is the first sandbox's, and
// the other user's sandbox stands on it too. Removing a folder another mount namespace has a mount on detaches that
// mount; nobody's server, which cannot read root's processes' binaries, took root's running sandbox for none and
// removed the mount point under it, and root's sandboxed command then made `.git` at the root's top.
describe.skipIf(NO_SANDBOX ?? CANNOT_SWITCH_USER)(
  titled('two users’ servers sharing a scratch root', NO_SANDBOX ?? CANNOT_SWITCH_USER),
  () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it("a server's last session there keeps the mount point another user's running sandbox stands on", async () => {
      const tmp = mkdtempSync('/var/tmp/ue-shared-tmp-');
      chmodSync(tmp, 0o1777);
      const wsNobody = folderOf('nobody', mkdtempSync('/var/tmp/ue-shared-ws-'));
      const runNobody = folderOf('nobody', mkdtempSync('/var/tmp/ue-shared-run-'));
      const wsRoot = folderOf('root', mkdtempSync('/var/tmp/ue-shared-ws-'));
      cleanup.push(tmp, wsNobody, runNobody, wsRoot);
      const bwrap = ['--sandbox-backend', 'bwrap'];
      const nobody = await startMcp('nobody', wsNobody, bwrap, { TMPDIR: tmp, XDG_RUNTIME_DIR: runNobody });
      servers.push(nobody);
      // nobody's sandbox makes the mount point for the missing .git: nobody's.
      const first = await nobody.call('sleep 4; echo FIRST_DONE', { yield_time_ms: 300 });
      const id = Number(/Process running with session ID (\d+)/.exec(first)?.[1]);
      expect(statSync(join(tmp, '.git')).uid, first).toBe(NOBODY);
      // Root's server only now: its own first sandbox (a start-up snapshot) would otherwise make the mount point first.
      const root = await startMcp('root', wsRoot, bwrap, { TMPDIR: tmp });
      servers.push(root);
      // root's sandbox masks it as it is, and tries to make .git there until nobody's session is over and past.
      const attack = root.call(
        `for i in $(seq 1 100); do mkdir "$TMPDIR/.git" 2>/dev/null && { echo MADE_GIT; break; }; sleep 0.1; done; echo TRIED`,
        { yield_time_ms: 30_000 },
      );
      await vi.waitFor(async () => expect(await nobody.write(id, '')).toContain('Process exited with code 0'), {
        timeout: 10_000,
      });
      const out = await attack;
      expect(out).toContain('TRIED');
      expect(out).not.toContain('MADE_GIT');
      expect(statSync(join(tmp, '.git')).uid).toBe(NOBODY);
    });
  },
);
