// What a person approves is what runs: attacks on the approval form, run against the real server (the built CLI's
// `mcp` over stdio, its defaults: workspace-write, on-request) with the real MCP SDK client, whose person approves
// whatever it is shown and keeps the form's text. Each planted program writes a marker into a folder outside every
// writable root: the marker can only appear if the program ran outside the sandbox.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TRUSTED_PATH, findExecutable } from '../../src/util/executable.js';
import { connectApprovalClient, decide, declineAll, formText, type Answer } from '../helpers/approval-client.js';
import { CANNOT_SWITCH_USER, NOBODY, folderMaker } from '../helpers/nobody.js';
import { textOf } from '../reliability/harness.js';
import { BACKENDS } from '../sandbox/sandbox-helpers.js';

type User = 'root' | 'nobody';
const users: User[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const REAL_GIT = findExecutable('git', TRUSTED_PATH)!;
const REAL_BASH = findExecutable('bash', TRUSTED_PATH)!;

/** A fresh folder of `user`'s own under `parent`, removed after the file. */
const folder = folderMaker();

/** A workspace of `user`'s (a git repository with one untracked file), outside /tmp. */
function workspace(user: User): string {
  const ws = folder(user, '/var/tmp', 'ue-what-runs-ws-');
  execFileSync('git', ['init', '-q', ws]);
  writeFileSync(join(ws, 'untracked.txt'), 'x\n');
  if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, ws]);
  return ws;
}

/**
 * A program at `path` that leaves `marker` and then does what `then` says (a shell line): what an agent would plant
 * in a folder the sandbox lets it write. Owned by `user`, as one the agent made would be.
 */
function plant(user: User, path: string, marker: string, then: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}' 2>/dev/null\n${then}\n`);
  chmodSync(path, 0o755);
  if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, join(path, '..')]);
}

/** Where a marker goes: a folder outside every writable root, which the server's user may write (unsandboxed). */
const markerIn = (user: User) => join(folder(user, '/var/tmp', 'ue-what-runs-marker-'), 'ran-outside');

function useClients() {
  const clients: { client: Client }[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.client.close()));
  });
  return async (...args: Parameters<typeof connectApprovalClient>) => {
    const c = await connectApprovalClient(...args);
    clients.push(c);
    return c;
  };
}

const approveAll = decide('approve');

describe.each(BACKENDS)('a planted shell asking to leave the sandbox, on $backend', ({ backend, skip }) => {
  if (skip) {
    it.skip(`skipped: ${skip}`, () => undefined);
    return;
  }
  const open = useClients();
  const args = ['--sandbox-backend', backend];

  describe.each(users)('served as %s', (user) => {
    it('exec_command with `shell` in the workspace: refused before anyone is asked, and it does not run', async () => {
      const ws = workspace(user);
      const marker = markerIn(user);
      const shell = join(ws, 'tools', 'bash');
      plant(user, shell, marker, 'exec /bin/bash "$@"');
      const c = await open(ws, approveAll, args, { user });
      const r = await c.call('exec_command', {
        cmd: 'git status --short',
        shell,
        sandbox_permissions: 'require_escalated',
        justification: 'see what changed',
      });
      expect(existsSync(marker)).toBe(false);
      expect(c.asked).toHaveLength(0);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(
        `Not run: the shell \`${shell}\` may not run a command outside the sandbox: it lies in ${ws}, which commands in the sandbox can write.`,
      );
      expect(textOf(r)).toMatch(/leave `shell` out .* or name one that \/etc\/shells lists/);
    });

    it('exec_command with `shell` in a folder of /tmp: refused, and it does not run', async () => {
      const ws = workspace(user);
      const marker = markerIn(user);
      const shell = join(folder(user, '/tmp', 'ue-what-runs-x-'), 'bash');
      plant(user, shell, marker, 'exec /bin/bash "$@"');
      const c = await open(ws, approveAll, args, { user });
      const r = await c.call('exec_command', {
        cmd: 'git status --short',
        shell,
        login: false,
        sandbox_permissions: 'require_escalated',
      });
      expect(existsSync(marker)).toBe(false);
      expect(c.asked).toHaveLength(0);
      expect(textOf(r)).toContain(`it lies in /tmp, which commands in the sandbox can write`);
    });

    it('the shell tool: an argv whose program is a planted shell is refused the same way', async () => {
      const ws = workspace(user);
      const marker = markerIn(user);
      const shell = join(ws, 'tools', 'bash');
      plant(user, shell, marker, 'exec /bin/bash "$@"');
      const c = await open(ws, approveAll, [...args, '--tool', 'shell'], { user });
      const r = await c.call('shell', {
        command: [shell, '-c', 'git status --short'],
        sandbox_permissions: 'require_escalated',
      });
      expect(existsSync(marker)).toBe(false);
      expect(c.asked).toHaveLength(0);
      expect(textOf(r)).toContain(`Not run: the shell \`${shell}\` may not run a command outside the sandbox`);
    });

    it('on-failure: after the sandbox refused the planted shell, it is not run again outside', async () => {
      const ws = workspace(user);
      const marker = markerIn(user);
      const shell = join(ws, 'tools', 'bash');
      // In the sandbox the marker's folder is read-only: the planted program's write is what the sandbox refuses.
      plant(user, shell, marker, `touch '${marker}'`);
      const c = await open(ws, approveAll, [...args, '--ask-for-approval', 'on-failure'], { user });
      const r = await c.call('exec_command', { cmd: 'git status --short', shell, login: false });
      expect(existsSync(marker)).toBe(false);
      expect(c.asked).toHaveLength(0);
      expect(textOf(r)).toMatch(
        /Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them .* Running it outside the sandbox was not approved\. Not run: the shell `[^`]+` may not run a command outside the sandbox: it lies in /,
      );
    });
  });
});

describe.each(users)('a planted git first on the server’s PATH, served as %s', (user) => {
  const open = useClients();
  /** The server started as `npx unified-exec` starts it: the workspace's node_modules/.bin first on PATH. */
  const serve = async (ws: string, marker: string, args: string[] = []) => {
    const bin = join(ws, 'node_modules', '.bin');
    plant(user, join(bin, 'git'), marker, 'echo planted git ran');
    return open(ws, approveAll, args, { user, env: { PATH: `${bin}:${process.env.PATH}` } });
  };

  it('exec_command: after approval the real git runs, not the planted one, and the form named its path', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    const c = await serve(ws, marker);
    const r = await c.call('exec_command', {
      cmd: 'git status --short',
      login: false,
      sandbox_permissions: 'require_escalated',
    });
    expect(existsSync(marker)).toBe(false);
    expect(textOf(r)).toContain('Process exited with code 0');
    expect(textOf(r)).toContain('?? untracked.txt');
    expect(textOf(r)).not.toContain('planted git ran');
    expect(c.asked).toHaveLength(1);
    expect(formText(c.asked[0]!).split('\n')).toContain(`Programs: git is ${REAL_GIT}`);
  });

  it('exec_command as a login shell (through its profile snapshot): the real git runs', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    const c = await serve(ws, marker);
    const r = await c.call('exec_command', { cmd: 'git status --short', sandbox_permissions: 'require_escalated' });
    expect(existsSync(marker)).toBe(false);
    expect(textOf(r)).toContain('?? untracked.txt');
    expect(formText(c.asked[0]!).split('\n')).toContain(`Programs: git is ${REAL_GIT}`);
  });

  it('the shell tool: the argv’s program is resolved without the planted folder, and the form shows its path', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    const c = await serve(ws, marker, ['--tool', 'shell']);
    const r = await c.call('shell', {
      command: ['git', 'status', '--short'],
      sandbox_permissions: 'require_escalated',
    });
    expect(existsSync(marker)).toBe(false);
    expect(textOf(r)).toContain('?? untracked.txt');
    expect(formText(c.asked[0]!).split('\n')).toContain(`Runs: ${REAL_GIT} status --short`);
  });

  it('inside the sandbox the planted git still runs, sandboxed, and cannot write outside', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    const c = await serve(ws, marker);
    const r = await c.call('exec_command', { cmd: 'git status --short', login: false });
    expect(textOf(r)).toContain('planted git ran');
    expect(existsSync(marker)).toBe(false);
    expect(c.asked).toHaveLength(0);
  });
});

describe('the approval form', () => {
  const open = useClients();

  it('names the shell and the whole argv, the directory and login', async () => {
    const ws = workspace('root');
    const sub = join(ws, 'sub');
    mkdirSync(sub);
    const c = await open(ws, approveAll);
    await c.call('exec_command', {
      cmd: 'git status --short',
      shell: 'bash',
      workdir: 'sub',
      sandbox_permissions: 'require_escalated',
      justification: 'see what changed',
    });
    await c.call('exec_command', {
      cmd: 'git status --short',
      shell: 'bash',
      login: false,
      tty: true,
      sandbox_permissions: 'require_escalated',
    });
    expect(c.asked).toHaveLength(2);
    expect(formText(c.asked[0]!).split('\n')).toEqual([
      'Allow this command?',
      '',
      '  git status --short',
      '',
      `Runs: ${REAL_BASH} -lc 'git status --short'`,
      'Login shell: yes (-lc): it runs your login profile first, which can change PATH',
      `Programs: git is ${REAL_GIT}`,
      `Directory: ${sub}`,
      'The agent asks to run this command outside the sandbox (full access to your files and network).',
      "The agent's reason: see what changed",
    ]);
    const second = formText(c.asked[1]!).split('\n');
    expect(second).toContain(`Runs: ${REAL_BASH} -c 'git status --short'`);
    expect(second).toContain('Login shell: no (-c)');
    expect(second).toContain(`Directory: ${ws}`);
    expect(second).toContain('Terminal: yes: the agent can type into it while it runs');
  });

  it('warns first when a program the command line names lies where the sandbox let the agent write', async () => {
    const ws = workspace('root');
    writeFileSync(join(ws, 'build.sh'), '#!/bin/sh\necho built\n');
    chmodSync(join(ws, 'build.sh'), 0o755);
    const c = await open(ws, approveAll);
    const r = await c.call('exec_command', {
      cmd: './build.sh',
      login: false,
      sandbox_permissions: 'require_escalated',
    });
    expect(textOf(r)).toContain('built');
    const lines = formText(c.asked[0]!).split('\n');
    expect(lines[0]).toBe(
      `Warning: ${ws}/build.sh lies in ${ws}, which commands in the sandbox can write: the agent may have written it.`,
    );
    expect(lines[1]).toBe('Allow this command?');
    expect(lines).toContain(`Programs: ./build.sh is ${ws}/build.sh`);
  });

  it('warns first when a login shell runs a profile in a home folder the sandbox let the agent write', async () => {
    const ws = workspace('root');
    const c = await open(ws, approveAll, [], { env: { HOME: ws } });
    await c.call('exec_command', { cmd: 'git status', sandbox_permissions: 'require_escalated' });
    await c.call('exec_command', { cmd: 'git status', login: false, sandbox_permissions: 'require_escalated' });
    expect(formText(c.asked[0]!).split('\n')[0]).toBe(
      `Warning: this login shell first runs the login profile in ${ws}, which lies in ${ws}: commands in the sandbox can write there, so the agent may have changed it.`,
    );
    // Not a login shell: no profile runs. git still reads ~/.gitconfig, which lies in the workspace.
    expect(formText(c.asked[1]!)).not.toContain('login profile');
    expect(formText(c.asked[1]!).split('\n')[0]).toBe(
      `Warning: git reads config or runs programs from ${ws}/.gitconfig (HOME=${ws} in its environment), which lies in ${ws}: commands in the sandbox can write it, so the agent may have set programs for git to run (core.fsmonitor, hooks).`,
    );
  });

  it("the shell tool: the form shows the argv with its shell's path and the programs of its script", async () => {
    const ws = workspace('root');
    const c = await open(ws, approveAll, ['--tool', 'shell']);
    await c.call('shell', { command: ['bash', '-lc', 'git status'], sandbox_permissions: 'require_escalated' });
    const lines = formText(c.asked[0]!).split('\n');
    expect(lines).toContain(`Runs: ${REAL_BASH} -lc 'git status'`);
    expect(lines).toContain(`Programs: git is ${REAL_GIT}`);
    expect(lines).toContain(`Directory: ${ws}`);
  });

  it('approving git status for the session covers that run only: another shell, directory, login or terminal asks again', async () => {
    const ws = workspace('root');
    mkdirSync(join(ws, 'sub'));
    const answers: ElicitResult[] = [{ action: 'accept', content: { decision: 'approve-for-session' } }];
    const answer: Answer = () => answers.shift() ?? { action: 'decline' };
    const c = await open(ws, answer);
    const base = { cmd: 'git status', shell: 'bash', login: false, sandbox_permissions: 'require_escalated' };
    expect(textOf(await c.call('exec_command', base))).toContain('Process exited with code 0');
    expect(c.asked).toHaveLength(1);
    // The same run, the shell named by its path: the same program runs, so it is not asked again.
    expect(textOf(await c.call('exec_command', { ...base, shell: REAL_BASH }))).toContain('Process exited with code 0');
    expect(c.asked).toHaveLength(1);
    // zsh where it is installed (a machine without it has sh as the other shell only).
    const zsh = findExecutable('zsh', TRUSTED_PATH) ? [{ shell: 'zsh' }] : [];
    const others = [...zsh, { shell: 'sh' }, { workdir: 'sub' }, { login: true }, { tty: true }];
    for (const other of others) {
      const r = await c.call('exec_command', { ...base, ...other });
      expect(r.isError, JSON.stringify(other)).toBe(true);
      expect(textOf(r)).toMatch(/Not run: nobody approved this command/);
    }
    expect(c.asked).toHaveLength(1 + others.length);
  });
});

describe.each(users)('what was approved is what runs later, served as %s', (user) => {
  const open = useClients();
  const forSession: Answer = () => ({ action: 'accept', content: { decision: 'approve-for-session' } });

  it('a directory swapped for a link elsewhere while the form is open: the command does not run in it', async () => {
    const ws = workspace(user);
    const build = join(ws, 'build');
    mkdirSync(build);
    const victim = folder(user, '/var/tmp', 'ue-what-runs-victim-');
    if (user === 'nobody') execFileSync('chown', [`${NOBODY}:${NOBODY}`, build]);
    // The agent swaps the folder while the person reads the form (done here, as the answer is given).
    const swapThenApprove: Answer = () => {
      renameSync(build, join(ws, 'b.old'));
      symlinkSync(victim, build);
      return { action: 'accept', content: { decision: 'approve' } };
    };
    const c = await open(ws, swapThenApprove, [], { user });
    const r = await c.call('exec_command', {
      cmd: 'touch ran-here',
      workdir: 'build',
      login: false,
      sandbox_permissions: 'require_escalated',
    });
    expect(formText(c.asked[0]!).split('\n')).toContain(`Directory: ${build}`);
    expect(existsSync(join(victim, 'ran-here'))).toBe(false);
    expect(textOf(r)).toContain(`the directory ${build} is not the one approved: it was replaced`);
  });

  it('started in the directory shown: `pwd` and $PWD name it', async () => {
    const ws = workspace(user);
    const c = await open(ws, approveAll, [], { user });
    const r = await c.call('exec_command', {
      cmd: 'pwd; echo "pwd -P: $(pwd -P)"',
      login: false,
      sandbox_permissions: 'require_escalated',
    });
    expect(textOf(r)).toContain(`${ws}\npwd -P: ${ws}`);
  });

  it('approved for the session, then another folder moved in under the same name: asked again', async () => {
    const ws = workspace(user);
    mkdirSync(join(ws, 'build'));
    mkdirSync(join(ws, 'other'));
    if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, ws]);
    const c = await open(ws, forSession, [], { user });
    const call = { cmd: 'pwd', workdir: 'build', login: false, sandbox_permissions: 'require_escalated' };
    await c.call('exec_command', call);
    renameSync(join(ws, 'build'), join(ws, 'b.old'));
    renameSync(join(ws, 'other'), join(ws, 'build'));
    await c.call('exec_command', call);
    expect(c.asked).toHaveLength(2);
  });

  it('a program in the workspace approved for the session: its rewrite is asked about again', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    plant(user, join(ws, 'run.sh'), `${marker}-first`, 'echo first');
    const c = await open(ws, forSession, [], { user });
    const call = { cmd: './run.sh', login: false, sandbox_permissions: 'require_escalated' };
    expect(textOf(await c.call('exec_command', call))).toContain('first');
    expect(formText(c.asked[0]!).split('\n')).toContain(
      'Approving it for the session runs it this once: a program it runs lies where commands in the sandbox can write, and may change, so it is asked each time.',
    );
    // The agent rewrites it, in the sandbox.
    await c.call('exec_command', { cmd: `printf '#!/bin/sh\\necho second\\n' > run.sh` });
    expect(textOf(await c.call('exec_command', call))).toContain('second');
    expect(c.asked).toHaveLength(2);
  });
});

describe('a command line that changes how its programs are found', () => {
  const open = useClients();
  const warning = (how: string) =>
    `Warning: the command changes how its programs are found (${how}): which programs run is not known before it runs.`;

  it.each([
    ['PATH=b:$PATH git status', 'PATH='],
    ['cd b; PATH=.:$PATH; git status', 'cd, PATH='],
    ['hash -p b/git git; git status', 'hash'],
  ])('%s: the form warns first and claims no Programs', async (cmd, how) => {
    const ws = workspace('root');
    const c = await open(ws, declineAll);
    await c.call('exec_command', { cmd, login: false, sandbox_permissions: 'require_escalated' });
    const lines = formText(c.asked[0]!).split('\n');
    expect(lines[0]).toBe(warning(how));
    expect(lines.filter((l) => l.startsWith('Programs:'))).toEqual([]);
  });

  it('the shell tool: an argv through `env PATH=…` warns the same way', async () => {
    const ws = workspace('root');
    const c = await open(ws, declineAll, ['--tool', 'shell']);
    await c.call('shell', {
      command: ['/usr/bin/env', 'PATH=/x', 'git', 'status'],
      sandbox_permissions: 'require_escalated',
    });
    expect(formText(c.asked[0]!).split('\n')[0]).toBe(warning('PATH='));
  });
});

describe.each(users)('the login profile of a command leaving the sandbox, served as %s', (user) => {
  const open = useClients();

  it('a ~/.bashrc linked into the workspace: the form warns first, naming the link and the file', async () => {
    const ws = workspace(user);
    const home = folder(user, '/var/tmp', 'ue-what-runs-home-');
    writeFileSync(join(ws, 'rc'), 'true\n');
    symlinkSync(join(ws, 'rc'), join(home, '.bashrc'));
    const c = await open(ws, declineAll, [], { user, env: { HOME: home } });
    await c.call('exec_command', { cmd: 'git status', shell: 'bash', sandbox_permissions: 'require_escalated' });
    expect(formText(c.asked[0]!).split('\n')[0]).toBe(
      `Warning: this login shell first runs ${home}/.bashrc (a link to ${ws}/rc), which lies in ${ws}: commands in the sandbox can write there, so the agent may have changed it.`,
    );
  });

  it('a profile that puts ./node_modules/.bin first on PATH: the workspace’s git does not run outside', async () => {
    const ws = workspace(user);
    const marker = markerIn(user);
    plant(user, join(ws, 'node_modules', '.bin', 'git'), marker, 'echo planted git ran');
    const home = folder(user, '/var/tmp', 'ue-what-runs-home-');
    writeFileSync(join(home, '.profile'), 'export PATH="./node_modules/.bin:$PATH"\n');
    const c = await open(ws, approveAll, [], { user, env: { HOME: home } });
    const r = await c.call('exec_command', {
      cmd: 'git status --short',
      shell: 'bash',
      sandbox_permissions: 'require_escalated',
    });
    expect(textOf(r)).toContain('?? untracked.txt');
    expect(textOf(r)).not.toContain('planted git ran');
    expect(existsSync(marker)).toBe(false);
  });
});

describe.each(users)('git outside the sandbox in a repository the sandbox can write, served as %s', (user) => {
  const open = useClients();

  it('a repository nested in the workspace: the form warns first, naming it, in it and above it; the workspace’s own is not named', async () => {
    const ws = workspace(user);
    const nested = join(ws, 'sub');
    execFileSync('git', ['init', '-q', nested]);
    if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, nested]);
    const c = await open(ws, declineAll, [], { user });
    const call = { cmd: 'git status', login: false, sandbox_permissions: 'require_escalated' };
    await c.call('exec_command', { ...call, workdir: 'sub' });
    await c.call('exec_command', call);
    expect(formText(c.asked[0]!).split('\n')[0]).toBe(
      `Warning: git run here reads the repository at ${nested}/.git, which lies in ${ws}: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`,
    );
    // git at the top may visit it (as a submodule, were it one): warned of too.
    expect(formText(c.asked[1]!).split('\n')[0]).toBe(
      `Warning: git run here may visit, beneath its work tree ${ws}, the repository at ${nested}/.git, which lies in ${ws}: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`,
    );
    expect(formText(c.asked[1]!)).not.toContain(`${ws}/.git,`);
  });
});
