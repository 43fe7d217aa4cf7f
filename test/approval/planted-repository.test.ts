// A repository the sandboxed agent wrote, and git let out of the sandbox: against the real server (the built CLI's
// `mcp` over stdio: workspace-write, on-request) on both backends, served as root and as nobody. A sandboxed command
// plants repositories in a folder of /tmp (a writable root), each with a core.fsmonitor that leaves a marker outside
// every writable root; then it asks to run plain git outside the sandbox at each, in each way a command can point git
// at a folder. The person approves every form that does not warn of the repository: a marker means the planted
// program ran outside the sandbox with the person's approval and no warning.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectApprovalClient, formText, type Answer } from '../helpers/approval-client.js';
import { CANNOT_SWITCH_USER, NOBODY, folderMaker } from '../helpers/nobody.js';
import { textOf } from '../reliability/harness.js';
import { BACKENDS } from '../sandbox/sandbox-helpers.js';

type User = 'root' | 'nobody';
const users: User[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];

/** A fresh folder of `user`'s own under `parent`, removed after the file. */
const folder = folderMaker();

const giveTo = (user: User, dir: string) => {
  if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
};

/** The shell lines that make `dir` a repository to git whose core.fsmonitor touches `marker`. */
const plantRepository = (dir: string, marker: string, worktree: string) =>
  [
    `mkdir -p '${dir}/objects' '${dir}/refs'`,
    `printf 'ref: refs/heads/main\\n' > '${dir}/HEAD'`,
    `printf '[core]\\n\\tworktree = ${worktree}\\n\\tfsmonitor = touch ${marker}\\n' > '${dir}/config'`,
  ].join(' && ');

/** The person: approves every form, unless it warns of git. */
const approveUnlessWarned: Answer = (request) => ({
  action: 'accept',
  content: { decision: formText(request).includes('Warning: git') ? 'deny' : 'approve' },
});

/** A config file that makes git run its fsmonitor, touching `marker`. */
const fsmonitorConfig = (marker: string) => `[core]\\n\\tfsmonitor = touch ${marker}\\n`;

/** git, with a name and address to commit with. */
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'protocol.file.allow=always', ...args]);

function useClients() {
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  return async (...args: Parameters<typeof connectApprovalClient>) => {
    const c = await connectApprovalClient(...args);
    clients.push(c.client);
    return c;
  };
}

describe.each(BACKENDS)('git let out of the sandbox on $backend', ({ backend, skip }) => {
  const open = useClients();
  const args = ['--sandbox-backend', backend];

  describe.each(users)('served as %s', (user) => {
    it.skipIf(skip !== undefined && !process.env.CI)(
      'warns for every repository the sandbox planted that git would read, and for none it could not write',
      async () => {
        const ws = folder(user, '/var/tmp', 'ue-planted-ws-');
        execFileSync('git', ['init', '-q', ws]);
        writeFileSync(join(ws, 'untracked.txt'), 'x\n');
        giveTo(user, ws);
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const c = await open(ws, approveUnlessWarned, args, { user });

        const planted = await c.call('exec_command', {
          cmd: [
            `mkdir ${scratch}/tree`,
            plantRepository(`${scratch}/bare`, `${outside}/bare`, `${scratch}/tree`),
            plantRepository(`${scratch}/dash-c/.git`, `${outside}/dash-c`, `${scratch}/tree`),
            plantRepository(`${scratch}/cd/.git`, `${outside}/cd`, `${scratch}/tree`),
            plantRepository(`${scratch}/git-dir-variable`, `${outside}/git-dir-variable`, `${scratch}/tree`),
            plantRepository(`${scratch}/git-dir-option`, `${outside}/git-dir-option`, `${scratch}/tree`),
            plantRepository(`${scratch}/common`, `${outside}/common`, `${scratch}/tree`),
            `mkdir ${scratch}/linked && printf 'ref: refs/heads/main\\n' > ${scratch}/linked/HEAD`,
            `echo ../common > ${scratch}/linked/commondir`,
            'echo PLANTED',
          ].join(' && '),
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');

        /** Asks to run `cmd` outside the sandbox; the form it got. */
        const escalate = async (cmd: string, workdir?: string) => {
          const before = c.asked.length;
          await c.call('exec_command', {
            cmd,
            login: false,
            sandbox_permissions: 'require_escalated',
            ...(workdir ? { workdir } : {}),
          });
          expect(c.asked.length, cmd).toBe(before + 1);
          return formText(c.asked[before]!);
        };
        const warning = (place: string, repository: string) =>
          `Warning: git ${place} reads the repository at ${repository}, which lies in /tmp: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`;

        // The workdir a bare-like folder (HEAD, objects, refs): git 2.39 reads its config, and takes no work tree
        // from it, so here nothing runs; the warning is what is checked.
        expect
          .soft((await escalate('git status', `${scratch}/bare`)).split('\n')[0])
          .toBe(warning('run here', `${scratch}/bare`));
        expect
          .soft((await escalate(`git -C ${scratch}/dash-c status`)).split('\n')[0])
          .toBe(warning(`in ${scratch}/dash-c (-C ${scratch}/dash-c)`, `${scratch}/dash-c/.git`));
        expect
          .soft((await escalate(`cd ${scratch}/cd && git status`)).split('\n'))
          .toContain(warning(`in ${scratch}/cd (cd ${scratch}/cd)`, `${scratch}/cd/.git`));
        expect
          .soft((await escalate(`GIT_DIR=${scratch}/git-dir-variable git status`)).split('\n')[0])
          .toBe(
            warning(
              `in ${scratch}/git-dir-variable (GIT_DIR=${scratch}/git-dir-variable)`,
              `${scratch}/git-dir-variable`,
            ),
          );
        expect
          .soft((await escalate(`git --git-dir=${scratch}/git-dir-option status`)).split('\n')[0])
          .toBe(
            warning(`in ${scratch}/git-dir-option (--git-dir ${scratch}/git-dir-option)`, `${scratch}/git-dir-option`),
          );
        // HEAD and a commondir, no objects or refs of its own: a linked worktree's folder, reading common's config.
        expect
          .soft((await escalate('git status', `${scratch}/linked`)).split('\n')[0])
          .toBe(warning('run here', `${scratch}/linked`));
        for (const name of ['bare', 'dash-c', 'cd', 'git-dir-variable', 'git-dir-option', 'common']) {
          expect.soft(existsSync(join(outside, name)), `the fsmonitor planted in ${name} ran`).toBe(false);
        }

        // The workspace's own .git is kept read-only: no warning for it.
        for (const cmd of ['git status', 'ls']) {
          expect((await escalate(cmd)).split('\n')[0], cmd).toBe('Allow this command?');
        }
      },
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      'asks again, warning, for git approved for the session in a folder where the sandbox has since planted a repository',
      async () => {
        const ws = folder(user, '/var/tmp', 'ue-planted-ws-');
        execFileSync('git', ['init', '-q', ws]);
        giveTo(user, ws);
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const answers = ['approve-for-session'];
        const c = await open(
          ws,
          (request) =>
            answers.length > 0
              ? { action: 'accept', content: { decision: answers.shift()! } }
              : approveUnlessWarned(request),
          args,
          { user },
        );
        const status = { cmd: 'git status', login: false, sandbox_permissions: 'require_escalated', workdir: scratch };
        await c.call('exec_command', status);
        expect(c.asked).toHaveLength(1);

        const planted = await c.call('exec_command', {
          cmd: `mkdir ${scratch}/tree && ${plantRepository(`${scratch}/.git`, `${outside}/later`, `${scratch}/tree`)} && echo PLANTED`,
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');
        await c.call('exec_command', status);
        expect.soft(c.asked).toHaveLength(2);
        expect
          .soft(c.asked[1] && formText(c.asked[1]).split('\n')[0])
          .toBe(
            `Warning: git run here reads the repository at ${scratch}/.git, which lies in /tmp: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`,
          );
        expect.soft(existsSync(join(outside, 'later')), 'the fsmonitor planted after the approval ran').toBe(false);
      },
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      'refuses a run whose folder became a repository while the form was open',
      async () => {
        const ws = folder(user, '/var/tmp', 'ue-planted-ws-');
        execFileSync('git', ['init', '-q', ws]);
        giveTo(user, ws);
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        // What a sandboxed command still running would do while the person reads the form (done here, as the
        // answer is given): make the folder a repository whose fsmonitor leaves a marker.
        const plantThenApprove: Answer = () => {
          mkdirSync(join(scratch, 'tree'));
          execFileSync('sh', ['-c', plantRepository(`${scratch}/.git`, `${outside}/meanwhile`, `${scratch}/tree`)]);
          giveTo(user, scratch);
          return { action: 'accept', content: { decision: 'approve' } };
        };
        const c = await open(ws, plantThenApprove, args, { user });
        const r = await c.call('exec_command', {
          cmd: 'git status',
          login: false,
          sandbox_permissions: 'require_escalated',
          workdir: scratch,
        });
        expect(c.asked).toHaveLength(1);
        expect.soft(formText(c.asked[0]!).split('\n')[0]).toBe('Allow this command?');
        expect
          .soft(textOf(r))
          .toContain(
            `Not run: while the approval form was open, something changed that it would now warn of: Warning: git run here reads the repository at ${scratch}/.git`,
          );
        expect.soft(existsSync(join(outside, 'meanwhile')), 'the fsmonitor planted meanwhile ran').toBe(false);
      },
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      'warns for a repository in /tmp that the workspace’s .git file points to',
      async () => {
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const ws = join(folder(user, '/var/tmp', 'ue-planted-ws-'), 'ws');
        execFileSync('git', ['init', '-q', '--separate-git-dir', `${scratch}/real.git`, ws]);
        giveTo(user, scratch);
        giveTo(user, ws);
        const c = await open(ws, approveUnlessWarned, args, { user });

        const planted = await c.call('exec_command', {
          cmd: `printf '[core]\\n\\tfsmonitor = touch ${outside}/pointed\\n' >> ${scratch}/real.git/config && echo PLANTED`,
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');
        await c.call('exec_command', { cmd: 'git status', login: false, sandbox_permissions: 'require_escalated' });
        expect
          .soft(formText(c.asked[0]!).split('\n')[0])
          .toBe(
            `Warning: git run here reads the repository at ${scratch}/real.git (which ${ws}/.git points to), which lies in /tmp: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`,
          );
        expect.soft(existsSync(join(outside, 'pointed')), 'the fsmonitor planted in real.git ran').toBe(false);
      },
    );

    /** A client of a server whose workspace is `ws`, and `escalate`: asks to run `cmd` outside, the form it got. */
    async function escalator(ws: string) {
      const c = await open(ws, approveUnlessWarned, args, { user });
      const escalate = async (cmd: string, workdir?: string) => {
        const before = c.asked.length;
        await c.call('exec_command', {
          cmd,
          login: false,
          sandbox_permissions: 'require_escalated',
          ...(workdir ? { workdir } : {}),
        });
        expect(c.asked.length, cmd).toBe(before + 1);
        return formText(c.asked[before]!);
      };
      return { c, escalate };
    }
    const repositoryWarning = (how: string, repository: string, root: string) =>
      `Warning: git ${how} ${repository}, which lies in ${root}: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`;

    it.skipIf(skip !== undefined && !process.env.CI)(
      'warns for a submodule whose .git the sandbox pointed at a repository it made',
      async () => {
        // Made as root (git refuses a folder of another user's), then given to the server's user.
        const source = folder('root', '/var/tmp', 'ue-planted-source-');
        git('init', '-q', source);
        git('-C', source, 'commit', '-q', '--allow-empty', '-m', 'source');
        const ws = folder('root', '/var/tmp', 'ue-planted-ws-');
        git('init', '-q', ws);
        git('-C', ws, 'submodule', 'add', '-q', source, 'sub');
        git('-C', ws, 'commit', '-q', '-m', 'sub');
        giveTo(user, ws);
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const { c, escalate } = await escalator(ws);

        const planted = await c.call('exec_command', {
          cmd: `${plantRepository(`${ws}/evil.git`, `${outside}/submodule`, `${ws}/sub`)} && printf 'gitdir: ../evil.git\\n' > sub/.git && echo PLANTED`,
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');
        for (const cmd of ['git status', 'git diff', 'git submodule status']) {
          expect
            .soft((await escalate(cmd)).split('\n')[0], cmd)
            .toBe(
              repositoryWarning(
                `run here may visit, beneath its work tree ${ws}, the repository at`,
                `${ws}/evil.git (which ${ws}/sub/.git points to)`,
                ws,
              ),
            );
        }
        expect.soft(existsSync(join(outside, 'submodule')), 'the fsmonitor planted for the submodule ran').toBe(false);
      },
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      'finds repositories as git does: a HEAD that is a dangling link, a .git file’s path taken literally, a folder through a link',
      async () => {
        const ws = folder(user, '/var/tmp', 'ue-planted-ws-');
        execFileSync('git', ['init', '-q', ws]);
        giveTo(user, ws);
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const { c, escalate } = await escalator(ws);

        const planted = await c.call('exec_command', {
          cmd: [
            `mkdir -p ${scratch}/head-link ${scratch}/spaces ${scratch}/linked/deep`,
            plantRepository(`${scratch}/head-link/.git`, `${outside}/head-link`, `${scratch}/head-link`),
            `rm ${scratch}/head-link/.git/HEAD && ln -s refs/heads/main ${scratch}/head-link/.git/HEAD`,
            plantRepository(`${scratch}/spaces/ /usr`, `${outside}/spaces`, `${scratch}/spaces`),
            `printf 'gitdir:  /usr\\n' > ${scratch}/spaces/.git`,
            plantRepository(`${scratch}/linked/.git`, `${outside}/linked`, `${scratch}/linked`),
            `ln -s ${scratch}/linked/deep ${ws}/lnk`,
            'echo PLANTED',
          ].join(' && '),
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');
        expect
          .soft((await escalate('git status', `${scratch}/head-link`)).split('\n')[0])
          .toBe(repositoryWarning('run here reads the repository at', `${scratch}/head-link/.git`, '/tmp'));
        expect
          .soft((await escalate('git status', `${scratch}/spaces`)).split('\n')[0])
          .toBe(
            repositoryWarning(
              'run here reads the repository at',
              `${scratch}/spaces/ /usr (which ${scratch}/spaces/.git points to)`,
              '/tmp',
            ),
          );
        expect
          .soft((await escalate('git -C lnk status')).split('\n')[0])
          .toBe(repositoryWarning(`in ${ws}/lnk (-C lnk) reads the repository at`, `${scratch}/linked/.git`, '/tmp'));
        for (const name of ['head-link', 'spaces', 'linked']) {
          expect.soft(existsSync(join(outside, name)), `the fsmonitor planted in ${name} ran`).toBe(false);
        }
      },
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      'warns for config git is pointed at in a writable root, and for config the command gives git',
      async () => {
        const ws = folder(user, '/var/tmp', 'ue-planted-ws-');
        execFileSync('git', ['init', '-q', ws]);
        giveTo(user, ws);
        const scratch = folder(user, '/tmp', 'ue-planted-repo-');
        const outside = folder(user, '/var/tmp', 'ue-planted-marker-');
        const { c, escalate } = await escalator(ws);

        const planted = await c.call('exec_command', {
          cmd: [
            `mkdir -p ${scratch}/home ${scratch}/xdg/git`,
            `printf '${fsmonitorConfig(`${outside}/home`)}' > ${scratch}/home/.gitconfig`,
            `printf '${fsmonitorConfig(`${outside}/xdg`)}' > ${scratch}/xdg/git/config`,
            `printf '${fsmonitorConfig(`${outside}/global`)}' > ${scratch}/global`,
            `printf '${fsmonitorConfig(`${outside}/include`)}' > ${scratch}/include`,
            `printf '${fsmonitorConfig(`${outside}/count`)}' > ${scratch}/count`,
            `printf '${fsmonitorConfig(`${outside}/pwd`)}' > ${ws}/.gitconfig`,
            'echo PLANTED',
          ].join(' && '),
          login: false,
        });
        expect(textOf(planted)).toContain('PLANTED');
        const configWarning = (path: string, named: string) =>
          `Warning: git reads config or runs programs from ${path} (${named}), which lies in /tmp: commands in the sandbox can write it, so the agent may have set programs for git to run (core.fsmonitor, hooks).`;
        expect
          .soft((await escalate(`HOME=${scratch}/home git status`)).split('\n')[0])
          .toBe(configWarning(`${scratch}/home/.gitconfig`, `HOME=${scratch}/home`));
        expect
          .soft((await escalate(`export XDG_CONFIG_HOME=${scratch}/xdg; git status`)).split('\n')[0])
          .toBe(configWarning(`${scratch}/xdg/git/config`, `XDG_CONFIG_HOME=${scratch}/xdg`));
        expect
          .soft((await escalate(`env GIT_CONFIG_GLOBAL=${scratch}/global git status`)).split('\n')[0])
          .toBe(configWarning(`${scratch}/global`, `GIT_CONFIG_GLOBAL=${scratch}/global`));
        expect
          .soft((await escalate(`git -c include.path=${scratch}/include status`)).split('\n')[0])
          .toBe(
            `Warning: git is given config by the command (-c include.path=${scratch}/include): config can make git run programs (core.fsmonitor, core.pager, aliases, include.path), and the agent chose it.`,
          );
        expect
          .soft(
            (
              await escalate(
                `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=${scratch}/count git status`,
              )
            ).split('\n')[0],
          )
          .toContain('Warning: git is given config by the command (GIT_CONFIG_COUNT=1, ');
        expect
          .soft((await escalate('HOME=$PWD git status')).split('\n')[0])
          .toBe(
            'Warning: git may read a repository or config in a folder the command picks only as it runs (HOME=$PWD): commands in the sandbox may have written it, with programs for git to run (core.fsmonitor, hooks).',
          );
        for (const name of ['home', 'xdg', 'global', 'include', 'count', 'pwd']) {
          expect.soft(existsSync(join(outside, name)), `the fsmonitor set by ${name} ran`).toBe(false);
        }
        // The person's own HOME is not the sandbox's to write: no warning for git there.
        expect((await escalate('git status')).split('\n')[0]).toBe('Allow this command?');
      },
    );
  });
});
