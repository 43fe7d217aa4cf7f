import { existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SandboxPolicy } from '../../src/sandbox/policy.js';
import { policyKeeps } from '../../src/spawn/env.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import {
  ShellSnapshots,
  parseCapture,
  profileFiles,
  snapshotShell,
  snapshotText,
  type LoginPlan,
} from '../../src/spawn/shell-snapshot.js';
import type { CommandRequest, ExecProcess, ProcessSpawner, SpawnOptions } from '../../src/spawn/types.js';
import { findExecutable } from '../../src/util/executable.js';
import { SNAPSHOT_ROOT, snapshotsContaining, useHomes } from '../helpers/login-profile.js';
import { PATIENT, killIfAlive, waitUntilGone } from '../helpers/processes.js';
import { processesRunning } from '../reliability/harness.js';
import { NO_SANDBOX, sandboxPolicy, useWorkspace } from '../sandbox/sandbox-helpers.js';
import { missingTools, titled } from '../helpers/needs.js';

const ZSH = findExecutable('zsh', process.env.PATH);
/** A zsh test's title, saying why it is skipped where zsh is absent. */
const NO_ZSH = missingTools('zsh');
const zshTitle = (title: string) => titled(title, NO_ZSH);

const SECRET = 'sk-ue-fixture-secret-4242';
/** A value no quoting mistake survives: quotes of both kinds, a dollar sign and a newline. */
const TRICKY = String.raw`export UE_TRICKY="it's \"quoted\" \$dollar
and a second line"`;
const BANNER = 'Welcome to the fixture profile';
/** What every shell's profile does first: variables, one the policy withholds, one it unsets, and a umask. */
const COMMON = ['export PATH="$HOME/bin:$PATH"', `export MY_API_KEY=${SECRET}`, 'unset UE_DROP_ME', 'umask 027'];

/** bash as a login shell reads ~/.bash_profile, which here reads ~/.profile, which reads ~/.bashrc. */
const BASH_HOME = {
  '.bash_profile': 'export UE_BASH_PROFILE=yes\n. "$HOME/.profile"\n',
  '.profile': [
    'export UE_PROFILE=yes',
    ...COMMON,
    'if [ -n "$BASH_VERSION" ]; then . "$HOME/.bashrc"; fi',
    `echo "${BANNER}"`,
  ].join('\n'),
  '.bashrc': [
    'export UE_BASHRC=yes',
    TRICKY,
    'ue_greet() { echo "hello $1"; }',
    'shopt -s expand_aliases',
    "alias ue_ll='echo aliased'",
    'shopt -s extglob',
    'set -o noclobber',
  ].join('\n'),
};
const DASH_HOME = {
  '.profile': [
    'export UE_PROFILE=yes',
    ...COMMON,
    TRICKY,
    'ue_greet() { echo "hello $1"; }',
    "alias ue_ll='echo aliased'",
    'set -o noclobber',
    `echo "${BANNER}"`,
  ].join('\n'),
};
/** zsh reads ~/.zshenv (every zsh, the snapshot's too) and, as a login shell, ~/.zprofile. */
const ZSH_HOME = {
  '.zshenv': 'export UE_ZSHENV=yes\n',
  '.zprofile': [
    'export UE_ZPROFILE=yes',
    ...COMMON,
    TRICKY,
    'ue_greet() { echo "hello $1"; }',
    'setopt aliases',
    "alias ue_ll='echo aliased'",
    'setopt extendedglob',
    `echo "${BANNER}"`,
  ].join('\n'),
};

/** What a command can see of its shell, in sections; errors go to stdout so they land where they happen. */
const PROBES = {
  bash: [
    'exec 2>&1',
    'echo @@env; env -0; echo',
    'echo @@functions; declare -F',
    'echo @@aliases; alias',
    'echo @@options; shopt -p; set +o',
    'echo @@calls; ue_greet world; ue_ll; umask; case ab in +(a|b)) echo extglob-matches;; esac',
  ].join('\n'),
  dash: [
    'exec 2>&1',
    'echo @@env; env -0; echo',
    'echo @@aliases; alias',
    'echo @@options; set +o',
    'echo @@calls; ue_ll; umask; ue_greet world || echo "status=$?"',
  ].join('\n'),
  zsh: [
    'exec 2>&1',
    'echo @@env; env -0; echo',
    'echo @@functions; typeset +f',
    'echo @@aliases; alias',
    'echo @@options; setopt',
    'echo @@calls; ue_greet world; ue_ll; umask; [[ aab == a#b ]] && echo extendedglob-matches',
  ].join('\n'),
};

/** Variables each shell sets for itself, and the process tag each process gets: never the profile's doing. */
const OWN = new Set(['SHLVL', '_', 'PWD', 'OLDPWD', 'UNIFIED_EXEC_TAG']);

interface Observed {
  /** What was printed before the probe's first section: the profile's own output. */
  preamble: string;
  /** `NAME=value`, sorted, without the shell's own variables. */
  env: string[];
  /** The probe's other sections, as printed ('' when the probe has none of that name). */
  sections: Record<'functions' | 'aliases' | 'options' | 'calls', string>;
}

function observe(output: string): Observed {
  const [preamble = '', ...rest] = output.split(/^@@(\w+)\n/m);
  const sections: Record<string, string> = {};
  for (let i = 0; i + 1 < rest.length; i += 2) sections[rest[i]!] = rest[i + 1]!;
  const env = (sections.env ?? '')
    .replace(/\n$/, '')
    .split('\0')
    .filter((entry) => entry !== '' && !OWN.has(entry.slice(0, entry.indexOf('='))))
    .sort();
  const { functions = '', aliases = '', options = '', calls = '' } = sections;
  return { preamble, env, sections: { functions, aliases, options, calls } };
}

/** Local processes, optionally sandboxed; counts the spawns so a test knows how many captures a plan made. */
class SpyExecutor implements ProcessSpawner {
  readonly spawned: SpawnOptions[] = [];
  private readonly inner = new LocalExecutor({ watchdog: false });

  prepareSpawn(options: SpawnOptions): Promise<void> {
    return this.inner.prepareSpawn(options);
  }

  spawn(options: SpawnOptions): Promise<ExecProcess> {
    this.spawned.push(options);
    return this.inner.spawn(options);
  }
}

const local = new LocalExecutor({ watchdog: false });

/** Runs argv to its end on pipes; stdout and stderr together. */
async function run(
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
  sandbox?: SandboxPolicy,
): Promise<{ output: string; exitCode: number }> {
  const options = { argv, env, cwd, tty: false, ...(sandbox ? { sandbox } : {}) };
  await local.prepareSpawn(options);
  const proc = await local.spawn(options);
  const chunks: Buffer[] = [];
  proc.onData((chunk) => chunks.push(chunk));
  const exitCode = await new Promise<number>((resolve) => proc.onExit((info) => resolve(info.exitCode)));
  return { output: Buffer.concat(chunks).toString('utf8'), exitCode };
}

/** The environment both paths start from: no variable of the machine's, HOME the fixture. */
function envFor(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8', USER: 'ue-test', ...extra };
}

/** The snapshot file a plan's argv loads. */
function fileOf(plan: LoginPlan): string {
  expect(plan.warning).toBeUndefined();
  const script = plan.argv!('true')[2]!;
  const match = /^\. '([^']+)'\n/.exec(script);
  if (!match) throw new Error(`no snapshot in ${JSON.stringify(script)}`);
  return match[1]!;
}

const homes = useHomes();
const live: ShellSnapshots[] = [];
afterEach(() => {
  for (const snapshots of live.splice(0)) snapshots.close();
});

function newSnapshots(timeoutMs?: number, retryMs?: number): { snapshots: ShellSnapshots; spy: SpyExecutor } {
  const spy = new SpyExecutor();
  const snapshots = new ShellSnapshots(spy, timeoutMs, retryMs);
  live.push(snapshots);
  return { snapshots, spy };
}

/** Runs `probe` as a real login shell and through a fresh snapshot, with the same environment and directory. */
async function bothWays(shell: string, files: Record<string, string>, probe: string) {
  const home = homes(files);
  const env = envFor(home, { UE_DROP_ME: 'before' });
  const { snapshots } = newSnapshots();
  const plan = await snapshots.plan({ shell, env, cwd: home, keep: policyKeeps({}) });
  const file = fileOf(plan);
  const login = await run([shell, '-lc', probe], env, home);
  const snap = await run(plan.argv!(probe), env, home);
  expect(login.exitCode).toBe(0);
  expect(snap.exitCode).toBe(0);
  return { login: observe(login.output), snap: observe(snap.output), file };
}

describe('a snapshot gives a command what the real login shell gives it', () => {
  it('bash: the same variables, functions, aliases and options, but not the secret or the banner', async () => {
    const { login, snap, file } = await bothWays('/bin/bash', BASH_HOME, PROBES.bash);
    // The profile's own output is the login shell's only: the snapshot does not run the profile.
    expect(login.preamble).toBe(`${BANNER}\n`);
    expect(snap.preamble).toBe('');
    // The environment policy drops MY_API_KEY: the snapshot neither sets it nor holds it on disk.
    expect(login.env).toContain(`MY_API_KEY=${SECRET}`);
    expect(snap.env).toEqual(login.env.filter((entry) => !entry.startsWith('MY_API_KEY=')));
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    expect(snap.env).toEqual(expect.arrayContaining(['UE_BASH_PROFILE=yes', 'UE_PROFILE=yes', 'UE_BASHRC=yes']));
    expect(snap.env.find((entry) => entry.startsWith('PATH='))).toMatch(/^PATH=\/.*\/bin:/);
    expect(snap.env.some((entry) => entry.startsWith('UE_DROP_ME='))).toBe(false);
    expect(snap.env).toContain(`UE_TRICKY=it's "quoted" $dollar\nand a second line`);
    expect(snap.sections.functions).toBe(login.sections.functions);
    expect(login.sections.functions).toContain('declare -f ue_greet\n');
    expect(snap.sections.aliases).toBe(login.sections.aliases);
    expect(login.sections.aliases).toContain("alias ue_ll='echo aliased'\n");
    // login_shell says how the shell was started: the one option that cannot be carried over.
    expect(login.sections.options).toContain('shopt -s login_shell\n');
    expect(snap.sections.options).toBe(login.sections.options.replace('shopt -s login_shell', 'shopt -u login_shell'));
    expect(login.sections.options).toMatch(/shopt -s expand_aliases\n[^]*shopt -s extglob\n[^]*set -o noclobber\n/);
    expect(login.sections.calls).toBe('hello world\naliased\n0027\nextglob-matches\n');
    expect(snap.sections.calls).toBe(login.sections.calls);
  });

  it('sh (dash): the same variables, aliases and options; a function of the profile is not carried over', async () => {
    expect(snapshotShell('/bin/sh')).toBe('dash');
    const { login, snap, file } = await bothWays('/bin/sh', DASH_HOME, PROBES.dash);
    expect(login.preamble).toBe(`${BANNER}\n`);
    expect(snap.preamble).toBe('');
    expect(login.env).toContain(`MY_API_KEY=${SECRET}`);
    expect(snap.env).toEqual(login.env.filter((entry) => !entry.startsWith('MY_API_KEY=')));
    expect(snap.env).toContain('UE_PROFILE=yes');
    expect(snap.env.some((entry) => entry.startsWith('UE_DROP_ME='))).toBe(false);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    expect(snap.sections.aliases).toBe(login.sections.aliases);
    expect(login.sections.aliases).toContain("ue_ll='echo aliased'\n");
    expect(snap.sections.options).toBe(login.sections.options);
    expect(login.sections.options).toContain('set -o noclobber\n');
    // dash cannot list its functions, so a snapshot has none of them (documented).
    expect(login.sections.calls).toBe('aliased\n0027\nhello world\n');
    expect(snap.sections.calls).toMatch(/^aliased\n0027\n.*: ue_greet: not found\nstatus=127\n$/);
  });

  it.skipIf(NO_ZSH !== undefined)(
    zshTitle('zsh: the same variables, functions, aliases and options, but not the secret or the banner'),
    async () => {
      const { login, snap, file } = await bothWays(ZSH!, ZSH_HOME, PROBES.zsh);
      expect(login.preamble).toBe(`${BANNER}\n`);
      expect(snap.preamble).toBe('');
      expect(login.env).toContain(`MY_API_KEY=${SECRET}`);
      expect(snap.env).toEqual(login.env.filter((entry) => !entry.startsWith('MY_API_KEY=')));
      expect(snap.env).toEqual(expect.arrayContaining(['UE_ZSHENV=yes', 'UE_ZPROFILE=yes']));
      expect(snap.env.some((entry) => entry.startsWith('UE_DROP_ME='))).toBe(false);
      expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
      expect(snap.sections.functions).toBe(login.sections.functions);
      expect(login.sections.functions).toContain('ue_greet\n');
      expect(snap.sections.aliases).toBe(login.sections.aliases);
      expect(login.sections.aliases).toContain("ue_ll='echo aliased'\n");
      // `login` says how the shell was started: the one option that cannot be carried over.
      expect(login.sections.options).toMatch(/^login$/m);
      expect(snap.sections.options).toBe(login.sections.options.replace(/^login\n/m, ''));
      expect(login.sections.options).toMatch(/^extendedglob$/m);
      expect(login.sections.calls).toBe('hello world\naliased\n027\nextendedglob-matches\n');
      expect(snap.sections.calls).toBe(login.sections.calls);
    },
  );
});

describe('when a snapshot is taken again', () => {
  const bashrcAndProfile = {
    '.profile': 'export UE_FROM=profile-1\n. "$HOME/.bashrc"\n',
    '.bashrc': 'export UE_RC=bashrc-1\n',
  };
  const show = 'echo "$UE_FROM $UE_RC"';

  it('reuses the snapshot while nothing it depends on changed: no second capture, the same file', async () => {
    const home = homes(bashrcAndProfile);
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    const file = fileOf(await snapshots.plan(request));
    const mtime = statSync(file).mtimeMs;
    const again = await snapshots.plan({ ...request, cwd: '/' }); // the working directory is not part of it
    expect(fileOf(again)).toBe(file);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(spy.spawned).toHaveLength(1);
  });

  it('takes one capture for calls that ask at the same time', async () => {
    const home = homes(bashrcAndProfile);
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    const plans = await Promise.all([snapshots.plan(request), snapshots.plan(request), snapshots.plan(request)]);
    expect(new Set(plans.map(fileOf)).size).toBe(1);
    expect(spy.spawned).toHaveLength(1);
  });

  it.each([
    ['~/.bashrc is edited', '.bashrc', 'export UE_RC=bashrc-2\n', 'profile-1 bashrc-2\n'],
    ['~/.profile is edited', '.profile', 'export UE_FROM=profile-2\n. "$HOME/.bashrc"\n', 'profile-2 bashrc-1\n'],
    // bash then reads ~/.bash_profile instead of ~/.profile.
    ['~/.bash_profile is added', '.bash_profile', 'export UE_FROM=bash_profile\n', 'bash_profile \n'],
  ])('takes a new snapshot when %s, and the new value shows', async (_, name, content, expected) => {
    const home = homes(bashrcAndProfile);
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    const before = await snapshots.plan(request);
    expect((await run(before.argv!(show), request.env, home)).output).toBe('profile-1 bashrc-1\n');

    writeFileSync(join(home, name), content);
    const later = new Date(Date.now() + 60_000); // a new mtime even on a coarse clock
    utimesSync(join(home, name), later, later);
    const after = await snapshots.plan(request);
    expect(spy.spawned).toHaveLength(2);
    expect(fileOf(after)).not.toBe(fileOf(before));
    expect((await run(after.argv!(show), request.env, home)).output).toBe(expected);
    expect((await run(['/bin/bash', '-lc', show], request.env, home)).output).toBe(expected);
  });

  it('takes a new snapshot for another starting environment, and reuses each', async () => {
    const home = homes({ '.profile': 'export UE_SEEN="seen-$UE_MODE"\n' });
    const { snapshots, spy } = newSnapshots();
    const request = (mode: string) => ({
      shell: '/bin/bash',
      env: envFor(home, { UE_MODE: mode }),
      cwd: home,
      keep: policyKeeps({}),
    });
    const a = await snapshots.plan(request('a'));
    const b = await snapshots.plan(request('b'));
    expect(fileOf(b)).not.toBe(fileOf(a));
    expect((await run(a.argv!('echo $UE_SEEN'), request('a').env, home)).output).toBe('seen-a\n');
    expect((await run(b.argv!('echo $UE_SEEN'), request('b').env, home)).output).toBe('seen-b\n');
    expect(fileOf(await snapshots.plan(request('a')))).toBe(fileOf(a));
    expect(spy.spawned).toHaveLength(2);
  });

  it('takes a new snapshot for another environment policy', async () => {
    const home = homes({ '.profile': 'export UE_PUBLIC=1 UE_HIDDEN=2\n' });
    const env = envFor(home);
    const { snapshots, spy } = newSnapshots();
    const all = await snapshots.plan({ shell: '/bin/bash', env, cwd: home, keep: policyKeeps({}) });
    const some = await snapshots.plan({
      shell: '/bin/bash',
      // What the manager passes for `exclude: ['UE_HIDDEN']`: the policy's filter (and its environment).
      env: { ...env, UE_POLICY: 'exclude' },
      cwd: home,
      keep: policyKeeps({ exclude: ['UE_HIDDEN'] }),
    });
    expect(spy.spawned).toHaveLength(2);
    const show = 'echo "[$UE_PUBLIC] [$UE_HIDDEN]"';
    expect((await run(all.argv!(show), env, home)).output).toBe('[1] [2]\n');
    expect((await run(some.argv!(show), env, home)).output).toBe('[1] []\n');
  });

  it('keeps one snapshot per shell', async () => {
    const home = homes({
      '.profile': 'if [ -n "$BASH_VERSION" ]; then export UE_SEEN=bash; else export UE_SEEN=sh; fi\n',
    });
    const env = envFor(home);
    const { snapshots, spy } = newSnapshots();
    const bash = await snapshots.plan({ shell: '/bin/bash', env, cwd: home, keep: policyKeeps({}) });
    const sh = await snapshots.plan({ shell: '/bin/sh', env, cwd: home, keep: policyKeeps({}) });
    expect(spy.spawned).toHaveLength(2);
    expect(fileOf(bash)).toMatch(/\/bash-[0-9a-f]{16}\.sh$/);
    expect(fileOf(sh)).toMatch(/\/dash-[0-9a-f]{16}\.sh$/);
    expect((await run(bash.argv!('echo $UE_SEEN'), env, home)).output).toBe('bash\n');
    expect((await run(sh.argv!('echo $UE_SEEN'), env, home)).output).toBe('sh\n');
  });

  it('takes it again when its file was removed (a /tmp cleaner), instead of failing the command', async () => {
    const home = homes({ '.profile': 'export UE_BACK=yes\n' });
    const request = { shell: '/bin/sh', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    rmSync(fileOf(await snapshots.plan(request)));
    const again = await snapshots.plan(request);
    expect(spy.spawned).toHaveLength(2);
    expect(await run(again.argv!('echo $UE_BACK'), request.env, home)).toEqual({ output: 'yes\n', exitCode: 0 });
    rmSync(snapshots.directory, { recursive: true });
    const third = await snapshots.plan(request);
    expect(await run(third.argv!('echo $UE_BACK'), request.env, home)).toEqual({ output: 'yes\n', exitCode: 0 });
  });

  describe.skipIf(NO_SANDBOX !== undefined)(titled('in a sandbox', NO_SANDBOX), () => {
    const ws = useWorkspace();

    it('takes a new snapshot for another sandbox policy, captured inside that sandbox', async () => {
      const home = homes({
        '.profile': 'if touch "$UE_WS/probe-$$" 2>/dev/null; then export UE_WRITES=yes; else export UE_WRITES=no; fi\n',
      });
      const env = envFor(home, { UE_WS: ws.dir });
      const { snapshots, spy } = newSnapshots();
      const plan = (sandbox: SandboxPolicy) =>
        snapshots.plan({ shell: '/bin/bash', env, cwd: ws.dir, sandbox, keep: policyKeeps({}) });
      const readOnly = sandboxPolicy({ mode: 'read-only', workspace: ws.dir });
      const writable = sandboxPolicy({ workspace: ws.dir });
      const ro = await plan(readOnly);
      const rw = await plan(writable);
      expect(spy.spawned).toHaveLength(2);
      expect(spy.spawned.map((options) => options.sandbox?.mode)).toEqual(['read-only', 'workspace-write']);
      expect(fileOf(rw)).not.toBe(fileOf(ro));
      expect((await run(ro.argv!('echo $UE_WRITES'), env, ws.dir, readOnly)).output).toBe('no\n');
      expect((await run(rw.argv!('echo $UE_WRITES'), env, ws.dir, writable)).output).toBe('yes\n');
    });
  });
});

describe('a profile that cannot be captured falls back to a real login shell', () => {
  it('says so in one line when the profile exits, and does not try again until it changes', async () => {
    const home = homes({ '.profile': 'exit 3\n' });
    const request = { shell: '/bin/sh', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    const warning =
      'Warning: ran a real login shell: the shell snapshot failed (the profile ended the shell before it could be captured)';
    expect(await snapshots.plan(request)).toEqual({ warning });
    expect(await snapshots.plan(request)).toEqual({ warning });
    expect(spy.spawned).toHaveLength(1);

    writeFileSync(join(home, '.profile'), 'export UE_FIXED=yes\n');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(home, '.profile'), later, later);
    const fixed = await snapshots.plan(request);
    expect((await run(fixed.argv!('echo $UE_FIXED'), request.env, home)).output).toBe('yes\n');
  });

  it('gives up on a profile that hangs after its time limit, and ends what it started', async () => {
    const home = homes({ '.profile': 'sleep 30 & echo $! > "$HOME/sleep.pid"\nwait\n' });
    const { snapshots } = newSnapshots(500);
    const started = performance.now();
    const plan = await snapshots.plan({ shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) });
    const pid = Number(readFileSync(join(home, 'sleep.pid'), 'utf8'));
    try {
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(plan).toEqual({
        warning:
          'Warning: ran a real login shell: the shell snapshot failed (the login profile took longer than 0.5 s)',
      });
      await waitUntilGone(pid, 1_000);
    } finally {
      killIfAlive(pid);
    }
  });

  it('takes a profile that timed out again after a while, in the background, and not on every call', async () => {
    // Slow the first time only (a cold cache: nvm, conda), then quick.
    const home = homes({
      '.profile': 'if [ ! -e "$HOME/warm" ]; then touch "$HOME/warm"; sleep 5; fi\nexport UE_RETRIED=yes\n',
    });
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots(500, 1_500);
    const timedOut = {
      warning: 'Warning: ran a real login shell: the shell snapshot failed (the login profile took longer than 0.5 s)',
    };
    expect(await snapshots.plan(request)).toEqual(timedOut);
    const failedAt = performance.now();
    // Until the retry is due, calls run a real login shell at once, and none starts a capture.
    for (let i = 0; i < 5; i++) expect(snapshots.planNow(request)).toEqual(timedOut);
    expect(spy.spawned).toHaveLength(1);
    // The first call after the wait starts the capture and does not wait for it; a later one finds it ready.
    await vi.waitFor(() => expect(snapshots.planNow(request)).not.toEqual(timedOut), { timeout: 5_000, interval: 50 });
    expect(performance.now() - failedAt).toBeGreaterThanOrEqual(1_400);
    const ready = await vi.waitFor(
      () => {
        const plan = snapshots.planNow(request);
        expect(plan.argv).toBeDefined();
        return plan;
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(spy.spawned).toHaveLength(2);
    expect(await run(ready.argv!('echo $UE_RETRIED'), request.env, home)).toEqual({ output: 'yes\n', exitCode: 0 });
    expect(snapshots.planNow(request).argv).toBeDefined();
    expect(spy.spawned).toHaveLength(2);
  });

  it('does not wait for a capture under way: a call meanwhile runs a real login shell, without a warning', async () => {
    const home = homes({ '.profile': 'sleep 1\nexport UE_LATE=yes\n' });
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    const started = performance.now();
    expect(snapshots.planNow(request)).toEqual({});
    expect(snapshots.planNow(request)).toEqual({});
    expect(performance.now() - started).toBeLessThan(500);
    const plan = await snapshots.plan(request);
    expect(spy.spawned).toHaveLength(1);
    expect(snapshots.planNow(request).argv).toBeDefined();
    expect(await run(plan.argv!('echo $UE_LATE'), request.env, home)).toEqual({ output: 'yes\n', exitCode: 0 });
  });

  it('waits for a capture under way within a given time (planWithin), and past it runs a real login shell', async () => {
    const home = homes({ '.profile': 'sleep 0.6\nexport UE_LATE=yes\n' });
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const { snapshots, spy } = newSnapshots();
    let started = performance.now();
    expect(await snapshots.planWithin(request, 100)).toEqual({});
    const short = performance.now() - started;
    expect(short).toBeGreaterThanOrEqual(95);
    expect(short).toBeLessThan(500);
    started = performance.now();
    const plan = await snapshots.planWithin(request, 5_000);
    expect(performance.now() - started).toBeLessThan(4_000);
    // The capture the first call started is the one the second waited for.
    expect(spy.spawned).toHaveLength(1);
    expect(await run(plan.argv!('echo $UE_LATE'), request.env, home)).toEqual({ output: 'yes\n', exitCode: 0 });
    started = performance.now();
    expect((await snapshots.planWithin(request, 5_000)).argv).toBeDefined();
    expect(performance.now() - started).toBeLessThan(100);
  });

  it.each(['/bin/bash', '/bin/sh'])(
    '%s: a profile that prints garbage, fake section markers and stderr noise still snapshots correctly',
    async (shell) => {
      const fake = '__UNIFIED_EXEC_SNAPSHOT_0123456789abcdef__';
      const home = homes({
        '.profile': [
          "printf 'no newline at the end'",
          `printf '\\n${fake}:aliases\\nalias ue_evil=true\\n${fake}:env\\nUE_FAKE=1\\000\\n${fake}:end\\n'`,
          `printf '\\n__UNIFIED_EXEC_SNAPSHOT___:env\\nUE_FAKE=2\\000\\n:end\\n'`,
          "printf '\\377\\376\\000binary\\n'",
          // On stderr, from a background job while the capture runs, and late: none may end up in the snapshot.
          `for i in $(seq 200); do echo "alias ue_ll='echo gotcha'" >&2; done`,
          `(for i in $(seq 3000); do echo "alias ue_ll='echo gotcha'"; echo "alias ue_ll='echo gotcha'" >&2; done) &`,
          '(sleep 0.1; echo \'alias ue_ll="echo late"\'; echo late-junk >&2) &',
          'export UE_OK=yes',
          '[ -n "$BASH_VERSION" ] && shopt -s expand_aliases',
          "alias ue_ll='echo aliased'",
        ].join('\n'),
      });
      const env = envFor(home);
      const { snapshots } = newSnapshots();
      const plan = await snapshots.plan({ shell, env, cwd: home, keep: policyKeeps({}) });
      const text = readFileSync(fileOf(plan), 'utf8');
      for (const junk of ['gotcha', 'late', 'UE_FAKE', 'ue_evil', 'binary', 'no newline'])
        expect(text).not.toContain(junk);
      const shown = await run(plan.argv!('echo "[$UE_OK] [${UE_FAKE-unset}]"; ue_ll'), env, home);
      expect(shown).toEqual({ output: '[yes] [unset]\naliased\n', exitCode: 0 });
    },
  );
});

describe("a capture's shell, kept for the login command that waited for it", () => {
  /** A login command of `home`'s bash on pipes, as a manager asks it of its executor. */
  function loginRequest(home: string, script: string, more: Partial<CommandRequest> = {}): CommandRequest {
    return {
      command: { script, shell: '/bin/bash', login: true },
      workdir: undefined,
      defaultWorkdir: home,
      env: { inherit: 'none', set: envFor(home) },
      tty: false,
      shellSnapshot: true,
      snapshotWaitMs: 5_000,
      ...more,
    };
  }
  const executors: LocalExecutor[] = [];
  afterEach(async () => {
    await Promise.all(executors.splice(0).map((executor) => executor.close()));
  });
  function newExecutor(): LocalExecutor {
    const executor = new LocalExecutor({ watchdog: false });
    executors.push(executor);
    return executor;
  }

  it('gives the command the pipe it asked for as its stdin', async () => {
    const home = homes({ '.profile': 'sleep 0.3\nexport UE_LATE=yes\n' });
    const executor = newExecutor();
    const warming = executor.warmUp(loginRequest(home, 'true'));
    // Started with the capture (older than its profile's sleep), not for the command.
    const age = 'stat=$(</proc/$$/stat); set -- ${stat##*) }; read -r up _ </proc/uptime; up=${up/./}';
    const script = `${age}; (( \${up} - \${20} > 20 )) && echo kept-process; read -r line; echo "[$UE_LATE] [$line]"; cat`;
    const { process: proc } = await executor.start(loginRequest(home, script, { stdin: true }));
    const chunks: Buffer[] = [];
    proc.onData((chunk) => chunks.push(chunk));
    const exited = new Promise<number>((resolve) => proc.onExit((info) => resolve(info.exitCode)));
    await proc.write('first\nsecond\n');
    proc.closeInput!();
    expect(await exited).toBe(0);
    expect(Buffer.concat(chunks).toString()).toBe('kept-process\n[yes] [first]\nsecond\n');
    await warming;
  });

  it('ends with what its profile started when no command comes for it after all', async () => {
    const marker = 33 + Math.floor(Math.random() * 1000) / 1000;
    const home = homes({ '.profile': `sleep ${marker} &\nsleep 0.3\nexport UE_LATE=yes\n` });
    const executor = newExecutor();
    const warming = executor.warmUp(loginRequest(home, 'true'));
    // prepare() gets the shell kept; the start that would run the command in it never comes (a caller gone).
    const request = loginRequest(home, 'echo never');
    await executor.prepare(request);
    await warming;
    expect(processesRunning(`sleep ${marker}`)).not.toEqual([]);
    // Given up after its hold: the shell ends, and what its profile left running is ended with it.
    await vi.waitFor(() => expect(processesRunning(`sleep ${marker}`)).toEqual([]), PATIENT);
    // The snapshot serves the next command.
    const { process: next } = await executor.start(
      loginRequest(home, 'shopt -q login_shell || echo snapshot; echo $UE_LATE'),
    );
    const chunks: Buffer[] = [];
    next.onData((chunk) => chunks.push(chunk));
    await new Promise((resolve) => next.onExit(resolve));
    expect(Buffer.concat(chunks).toString()).toBe('snapshot\nyes\n');
  });

  it('runs a profile that reads its stdin with /dev/null there, as a capture without a command does', async () => {
    const home = homes({ '.profile': 'read -r line; export UE_READ="[$line]"\nsleep 0.2\n' });
    const executor = newExecutor();
    const warming = executor.warmUp(loginRequest(home, 'true'));
    const started = performance.now();
    const { process: proc } = await executor.start(loginRequest(home, 'echo "$UE_READ"', { stdin: true }));
    const chunks: Buffer[] = [];
    proc.onData((chunk) => chunks.push(chunk));
    proc.closeInput!();
    await new Promise((resolve) => proc.onExit(resolve));
    expect(Buffer.concat(chunks).toString()).toBe('[]\n');
    // The profile did not wait for the command's stdin: only for its own sleep.
    expect(performance.now() - started).toBeLessThan(3_000);
    await warming;
  });
});

describe('snapshots are private to their manager', () => {
  it('writes a 0700 directory of 0600 files, and close() removes it', async () => {
    const home = homes({ '.profile': `export UE_PRIVATE=yes MY_API_KEY=${SECRET}\n` });
    const { snapshots } = newSnapshots();
    const file = fileOf(
      await snapshots.plan({ shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) }),
    );
    const dir = snapshots.directory;
    expect(file.startsWith(`${dir}/`)).toBe(true);
    expect(statSync(SNAPSHOT_ROOT).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain("export UE_PRIVATE='yes'");
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
    snapshots.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('never shares a file between two instances', async () => {
    const home = homes({ '.profile': 'export UE_SHARED=no\n' });
    const request = { shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) };
    const first = newSnapshots().snapshots;
    const second = newSnapshots().snapshots;
    const [a, b] = [fileOf(await first.plan(request)), fileOf(await second.plan(request))];
    expect(a).not.toBe(b);
    expect(first.directory).not.toBe(second.directory);
    first.close();
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(true);
  });

  it('close() during a capture ends it, writes nothing and leaves no directory behind', async () => {
    const slow = `ue-slow-${process.pid}-${Date.now()}`;
    const home = homes({ '.profile': `export UE_SLOW=${slow}\nsleep 30 & echo $! > "$HOME/sleep.pid"\nwait\n` });
    const { snapshots } = newSnapshots();
    const dir = snapshots.directory;
    const planned = snapshots.plan({ shell: '/bin/bash', env: envFor(home), cwd: home, keep: policyKeeps({}) });
    const pidFile = join(home, 'sleep.pid');
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8')).toMatch(/^\d+\n$/), PATIENT);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      const closed = performance.now();
      snapshots.close();
      expect((await planned).warning).toMatch(/^Warning: ran a real login shell: the shell snapshot failed/);
      expect(performance.now() - closed).toBeLessThan(2_000); // not its 10 s time limit
      await waitUntilGone(pid, 2_000);
      expect(existsSync(dir)).toBe(false);
      // Nothing written for the capture that was cut short, in a directory made again or anywhere else.
      expect(snapshotsContaining(slow)).toEqual([]);
    } finally {
      killIfAlive(pid);
    }
  });
});

describe('which shells and files a snapshot covers', () => {
  it('knows bash, dash (as /bin/sh) and zsh by the program they really are, and nothing else', () => {
    expect(snapshotShell('/bin/bash')).toBe('bash');
    expect(snapshotShell('/usr/bin/dash')).toBe('dash');
    if (ZSH) expect(snapshotShell(ZSH)).toBe('zsh');
    expect(snapshotShell('/bin/ls')).toBeUndefined();
    expect(snapshotShell('/no/such/shell')).toBeUndefined();
  });

  it('runs any other shell as a real login shell, without a warning', async () => {
    const { snapshots, spy } = newSnapshots();
    expect(await snapshots.plan({ shell: '/bin/ls', env: envFor('/'), cwd: '/', keep: policyKeeps({}) })).toEqual({});
    expect(spy.spawned).toHaveLength(0);
  });

  it('fingerprints the profile files each shell reads at login', () => {
    expect(profileFiles('bash', '/h')).toEqual(
      expect.arrayContaining(['/etc/profile', '/h/.bash_profile', '/h/.bash_login', '/h/.profile', '/h/.bashrc']),
    );
    expect(profileFiles('dash', '/h')).toEqual(expect.arrayContaining(['/etc/profile', '/h/.profile']));
    expect(profileFiles('dash', '/h')).not.toContain('/h/.bashrc');
    expect(profileFiles('zsh', '/h')).toEqual(expect.arrayContaining(['/h/.zshenv', '/h/.zprofile', '/h/.zlogin']));
  });
});

describe('parseCapture and snapshotText', () => {
  const marker = '__UNIFIED_EXEC_SNAPSHOT_00112233aabbccdd__';
  const section = (name: string) => `\n${marker}:${name}\n`;

  it('reads the sections after whatever the profile printed, and ignores markers without the nonce', () => {
    const output = [
      `banner\n__UNIFIED_EXEC_SNAPSHOT_ffffffffffffffff__:env\nEVIL=1\0`,
      section('aliases'),
      "alias ll='ls -l'",
      section('functions'),
      'f () \n{ \n    echo f\n}',
      section('options'),
      'shopt -s extglob',
      section('env'),
      'A=1\0B=x=y\nz\0=bad\0noequals\0',
      section('end'),
    ].join('');
    const capture = parseCapture(output, marker);
    expect(capture).toEqual({
      aliases: "alias ll='ls -l'",
      functions: 'f () \n{ \n    echo f\n}',
      options: 'shopt -s extglob',
      env: new Map([
        ['A', '1'],
        ['B', 'x=y\nz'],
      ]),
    });
  });

  it('finds no capture when the output stops before the end marker', () => {
    expect(parseCapture(`${section('aliases')}${section('env')}A=1\0`, marker)).toBeUndefined();
    expect(parseCapture('the profile exited', marker)).toBeUndefined();
  });

  it('exports what the profile changed, unsets what it removed, and leaves the rest and dropped ones out', () => {
    const capture = parseCapture(
      `${section('options')}shopt -s extglob\nshopt -s login_shell\nset -o noclobber\numask 0027${section('env')}KEPT=same\0CHANGED=new\0ADDED=it's\0MY_TOKEN=t\0SHLVL=2\0${section('end')}`,
      marker,
    )!;
    const text = snapshotText(capture, { KEPT: 'same', CHANGED: 'old', REMOVED: 'x', PWD: '/' }, policyKeeps({}));
    expect(text.split('\n')).toEqual([
      '# unified-exec shell snapshot: what the login profile left behind',
      'unset REMOVED',
      "export CHANGED='new'",
      "export ADDED='it'\\''s'",
      // login_shell says how the capture started: not an option a `-c` shell can be given.
      'shopt -s extglob',
      'set -o noclobber',
      'umask 0027',
      '',
    ]);
  });
});
