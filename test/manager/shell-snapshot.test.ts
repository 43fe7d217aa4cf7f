import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ManagerOptions } from '../../src/index.js';
import { FakeExecutor } from '../helpers/fake-executor.js';
import { snapshotsContaining, useHomes } from '../helpers/login-profile.js';
import { useManagers } from '../helpers/manager.js';
import { BACKENDS, NO_SANDBOX, useWorkspace } from '../sandbox/sandbox-helpers.js';
import { stateRoot } from '../../src/util/private-dir.js';
import { titled } from '../helpers/needs.js';
import { processesRunning } from '../reliability/harness.js';
import { PATIENT } from '../helpers/processes.js';

const FALLBACK = /^Warning: ran a real login shell: the shell snapshot failed \(.+\)$/;

const homes = useHomes();
const manager = useManagers();

/** A profile line no other suite's snapshot holds, to find this test's snapshot files by. */
function mark(): { line: string; value: string } {
  const value = `ue-mark-${randomBytes(6).toString('hex')}`;
  return { line: `export UE_MARK=${value}`, value };
}

/** A manager whose login shells read `home`'s profile, unsandboxed, bash by default; not warmed up. */
function coldManagerIn(home: string, options: ManagerOptions = {}) {
  return manager({
    defaultShell: '/bin/bash',
    cwd: home,
    sandbox: 'danger-full-access',
    ...options,
    env: { set: { HOME: home } },
  });
}

/** The same, warmed up as a server is at its start: its snapshot taken before the first call. */
async function managerIn(home: string, options: ManagerOptions = {}) {
  const m = coldManagerIn(home, options);
  await m.warmUp();
  return m;
}

/** How many times the profile ran: it appends a line to ~/profile-runs each time. */
const COUNTED = 'echo run >> "$HOME/profile-runs"\n';
function profileRuns(home: string): number {
  const file = join(home, 'profile-runs');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
}

describe('exec_command with a login shell', () => {
  it('answers `echo hi` with hi and exit 0, through a snapshot and through a real login shell', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\nexport UE_GREETING=hi\n` });
    for (const shellSnapshot of [true, false]) {
      const m = await managerIn(home, { shellSnapshot });
      expect(await m.execCommand({ command: 'echo hi' })).toMatchObject({ output: 'hi\n', exitCode: 0, warnings: [] });
      expect(await m.execCommand({ command: 'echo $UE_GREETING' })).toMatchObject({ output: 'hi\n', exitCode: 0 });
      expect(await m.execCommand({ command: 'echo hi', tty: true })).toMatchObject({ output: 'hi\r\n', exitCode: 0 });
      // One snapshot served all three (a terminal or not); none without snapshots.
      expect(snapshotsContaining(value)).toHaveLength(shellSnapshot ? 1 : 0);
      await m.shutdown();
    }
  });

  it('runs the profile once with snapshots on, and once per call with them off', async () => {
    const on = homes({ '.profile': COUNTED });
    const snapshots = await managerIn(on);
    for (let i = 0; i < 3; i++) expect((await snapshots.execCommand({ command: 'true' })).exitCode).toBe(0);
    expect(profileRuns(on)).toBe(1);

    const off = homes({ '.profile': COUNTED });
    const real = await managerIn(off, { shellSnapshot: false });
    for (let i = 0; i < 3; i++) expect((await real.execCommand({ command: 'true' })).exitCode).toBe(0);
    expect(profileRuns(off)).toBe(3);
  });

  it('takes no snapshot for a command with login: false', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\n${COUNTED}` });
    const m = coldManagerIn(home);
    for (let i = 0; i < 3; i++) {
      expect(await m.execCommand({ command: 'echo "[$UE_MARK]"', login: false })).toMatchObject({ output: '[]\n' });
    }
    expect(profileRuns(home)).toBe(0);
    expect(snapshotsContaining(value)).toEqual([]);
  });

  it('leaves out a secret the profile exports, which a real login shell shows (documented)', async () => {
    const secret = `sk-ue-${randomBytes(6).toString('hex')}`;
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\nexport MY_API_KEY=${secret}\n` });
    const show = { command: 'echo "[$MY_API_KEY]"' };
    expect(await (await managerIn(home)).execCommand(show)).toMatchObject({ output: '[]\n', warnings: [] });
    expect(await (await managerIn(home, { shellSnapshot: false })).execCommand(show)).toMatchObject({
      output: `[${secret}]\n`,
    });
    const [file] = snapshotsContaining(value);
    expect(readFileSync(file!, 'utf8')).not.toContain(secret);
  });
});

describe('a profile the snapshot cannot capture', () => {
  it('answers as a real login shell would, with a one-line warning', async () => {
    const home = homes({ '.profile': 'exit 3\n' });
    const real = await (await managerIn(home, { shellSnapshot: false })).execCommand({ command: 'echo hi' });
    expect(real).toMatchObject({ output: '', exitCode: 3, warnings: [] });
    const fallback = await (await managerIn(home)).execCommand({ command: 'echo hi' });
    expect(fallback).toMatchObject({ output: '', exitCode: 3 });
    expect(fallback.warnings).toHaveLength(1);
    expect(fallback.warnings[0]).toMatch(FALLBACK);
  });

  it("gives the command's output when only the capture failed", async () => {
    // Fails the first time it runs (the capture), then lets the shell through.
    const home = homes({ '.profile': 'if [ ! -e "$HOME/ran" ]; then touch "$HOME/ran"; exit 3; fi\n' });
    const reply = await (await managerIn(home)).execCommand({ command: 'echo hi' });
    expect(reply).toMatchObject({ output: 'hi\n', exitCode: 0 });
    expect(reply.warnings).toEqual([
      'Warning: ran a real login shell: the shell snapshot failed (the profile ended the shell before it could be captured)',
    ]);
  });
});

describe('snapshot files', () => {
  it('are 0600 in a 0700 directory of their manager, removed by shutdown()', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\n` });
    const m = await managerIn(home);
    expect((await m.execCommand({ command: 'true' })).exitCode).toBe(0);
    const [file, ...more] = snapshotsContaining(value);
    expect(more).toEqual([]);
    expect(statSync(dirname(file!)).mode & 0o777).toBe(0o700);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    await m.shutdown();
    expect(existsSync(dirname(file!))).toBe(false);
  });

  it('are never shared between two managers', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\n` });
    const [a, b] = [await managerIn(home), await managerIn(home)];
    await a.execCommand({ command: 'true' });
    await b.execCommand({ command: 'true' });
    const files = snapshotsContaining(value);
    expect(files).toHaveLength(2);
    expect(dirname(files[0]!)).not.toBe(dirname(files[1]!));
    await a.shutdown();
    expect(snapshotsContaining(value)).toHaveLength(1);
  });
});

describe('a shutdown while the snapshot is taken', () => {
  it('ends the capture: warmUp resolves at once, and no process of the profile is left', async () => {
    const marker = 31 + Math.floor(Math.random() * 1000) / 1000;
    const home = homes({ '.profile': `sleep ${marker}\n` });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    // The capture (a login shell sleeping in its profile) is under way.
    await vi.waitFor(() => expect(processesRunning(`sleep ${marker}`)).not.toEqual([]), PATIENT);
    const shut = performance.now();
    await m.shutdown();
    await warming;
    expect(performance.now() - shut).toBeLessThan(5_000);
    await vi.waitFor(() => expect(processesRunning(`sleep ${marker}`)).toEqual([]), PATIENT);
  });
});

describe('a call that comes before the snapshot is ready', () => {
  it('waits for the capture when it can still answer within its yield: the profile runs once, the call has its output', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\n${COUNTED}sleep 0.4\nexport UE_SLOW=yes\n` });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const sent = performance.now();
    const first = await m.execCommand({ command: 'echo "[$UE_SLOW]"', yieldTimeMs: 3_000 });
    const took = performance.now() - sent;
    expect(first).toMatchObject({ state: 'exited', exitCode: 0, output: '[yes]\n', warnings: [] });
    // It waited for the capture (0.4 s of profile), not for its yield.
    expect(took).toBeGreaterThan(300);
    expect(took).toBeLessThan(2_500);
    await warming;
    expect(snapshotsContaining(value)).toHaveLength(1);
    expect(profileRuns(home)).toBe(1);
  });

  it('waits only within its yield: then it runs a real login shell, answers by its yield counted from before the wait, and later calls use the snapshot', async () => {
    const { line, value } = mark();
    // The capture and the first call each run the profile; the calls after the snapshot is ready do not.
    const home = homes({ '.profile': `${line}\n${COUNTED}sleep 2\nexport UE_SLOW=yes\n` });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const sent = performance.now();
    const first = await m.execCommand({ command: 'echo "[$UE_SLOW]"', yieldTimeMs: 1_000 });
    // Its yield counts from before its wait for the capture (950 ms of the 1 000): not 950 + 1 000 ms.
    expect(performance.now() - sent).toBeLessThan(1_600);
    expect(first).toMatchObject({ state: 'running', warnings: [] });
    if (first.state === 'exited') throw new Error('the first call should still run its profile');
    let polled = await m.writeStdin({ sessionId: first.sessionId, yieldTimeMs: 5_000 });
    while (polled.state !== 'exited') polled = await m.writeStdin({ sessionId: first.sessionId, yieldTimeMs: 5_000 });
    expect(polled).toMatchObject({ output: '[yes]\n', exitCode: 0 });
    await warming;
    expect(snapshotsContaining(value)).toHaveLength(1);
    const runs = profileRuns(home);
    expect(runs).toBe(2);
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      expect(await m.execCommand({ command: 'echo "[$UE_SLOW]"' })).toMatchObject({ output: '[yes]\n', exitCode: 0 });
      expect(performance.now() - started).toBeLessThan(1_500);
    }
    expect(profileRuns(home)).toBe(runs);
  });
});

/**
 * Prints whether the command's process is the one the capture started (then older than the profile's sleep) or one
 * started for the command: its age, from its start time in /proc and the uptime, in hundredths of a second.
 */
const WHICH_PROCESS = [
  'stat=$(</proc/$$/stat); set -- ${stat##*) }; read -r up _ </proc/uptime; up=${up/./}',
  '(( up - ${20} > 25 )) && echo started-with-the-capture || echo started-for-the-call',
].join('\n');

describe("a call that comes while the snapshot is taken runs in the capture's process", () => {
  /** What a command prints of the shell it runs in (each line one fact), and the exit it leaves with. */
  const PROBE_SHELL = [
    WHICH_PROCESS,
    'shopt -q login_shell && echo login-shell || echo plain-shell',
    'echo "[$UE_SLOW]"; ue_fn',
    `[ "$IFS" = $' \t\n' ] && echo ifs-kept`,
    '[ -z "${__ue_lines+1}${__ue_env+1}${__ue_kv+1}${__ue_fd+1}" ] && echo no-variable-of-ours',
    // The descriptors the capture kept its pipes on are closed before the command runs.
    'for fd in 3 7 8 9; do { : >&$fd; } 2>/dev/null && echo "fd $fd open"; done',
    'if read -r line; then echo "read [$line]"; else echo stdin-at-eof; fi',
    'echo to-stderr >&2',
    'exit 7',
  ].join('\n');
  const slowProfile = (line: string) =>
    `${line}\n${COUNTED}sleep 0.4\nexport UE_SLOW=yes\nue_fn() { echo from-the-profile; }\n`;

  it('once it has printed the snapshot: the command as through the snapshot, the profile run once', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': slowProfile(line) });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const first = await m.execCommand({ command: PROBE_SHELL, yieldTimeMs: 5_000 });
    expect(first).toMatchObject({ state: 'exited', exitCode: 7, warnings: [] });
    // stdout and stderr are two pipes: their lines may come in either order.
    const facts = ['[yes]', 'from-the-profile', 'ifs-kept', 'no-variable-of-ours', 'stdin-at-eof', 'to-stderr'];
    expect(first.output.split('\n').sort()).toEqual(['', 'started-with-the-capture', 'plain-shell', ...facts].sort());
    await warming;
    // One login shell ran the profile, the capture's; its process then ran the command. The snapshot was written all the same.
    expect(profileRuns(home)).toBe(1);
    expect(snapshotsContaining(value)).toHaveLength(1);
    const later = await m.execCommand({ command: PROBE_SHELL });
    expect(later.output.split('\n').sort()).toEqual(['', 'started-for-the-call', 'plain-shell', ...facts].sort());
    expect(profileRuns(home)).toBe(1);
  });

  it('takes one call: a second at the same time, one on a terminal and one in another directory are spawned', async () => {
    const home = homes({ '.profile': slowProfile(mark().line) });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const which = `${WHICH_PROCESS}\necho "[$UE_SLOW]"`;
    const calls = await Promise.all([
      m.execCommand({ command: which, yieldTimeMs: 5_000 }),
      m.execCommand({ command: which, yieldTimeMs: 5_000 }),
      m.execCommand({ command: which, yieldTimeMs: 5_000, tty: true }),
      m.execCommand({ command: which, yieldTimeMs: 5_000, cwd: dirname(home) }),
    ]);
    await warming;
    const outputs = calls.map((reply) => reply.output.replace(/\r\n/g, '\n'));
    expect(outputs.slice(0, 2).sort()).toEqual(['started-for-the-call\n[yes]\n', 'started-with-the-capture\n[yes]\n']);
    expect(outputs.slice(2)).toEqual(['started-for-the-call\n[yes]\n', 'started-for-the-call\n[yes]\n']);
    expect(profileRuns(home)).toBe(1);
  });

  it('leaves the command nothing of what the profile did to its own shell: it runs as through the snapshot', async () => {
    const secret = `ghp_${randomBytes(12).toString('hex')}`;
    const home = homes({
      '.profile': [
        'mkdir -p "$HOME/elsewhere"; cd "$HOME/elsewhere"',
        'NOT_EXPORTED=profile-only',
        `export GITHUB_TOKEN=${secret}; readonly GITHUB_TOKEN`,
        "trap 'echo profile-exit-trap' EXIT",
        "trap '' INT",
        'exec 3>"$HOME/fd3.log"',
        // Carried over by the snapshot, as a profile's options are: the same both ways.
        'set -eu',
        // A job of the profile's that writes on the capture's pipes after its dump, while the command runs.
        '(sleep 0.4; echo from-a-profile-job >&7; echo from-a-profile-job >&9) &',
        'sleep 0.3',
      ].join('\n'),
      // A login shell's `exit` runs this: neither the capture nor the command may.
      '.bash_logout': 'echo logout >> "$HOME/logout-runs"\n',
    });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const show = [
      WHICH_PROCESS,
      'pwd',
      'echo "[${NOT_EXPORTED-unset}] [${GITHUB_TOKEN-unset}]"',
      '{ : >&3; } 2>/dev/null && echo fd-3-open',
      'trap -p EXIT',
      'grep SigIgn /proc/$$/status',
      'sleep 0.3',
      'exit 0',
    ].join('\n');
    const first = await m.execCommand({ command: show, yieldTimeMs: 5_000 });
    await warming;
    const later = await m.execCommand({ command: show });
    expect(first.output.split('\n')[0]).toBe('started-with-the-capture');
    expect(later.output.split('\n')[0]).toBe('started-for-the-call');
    expect(first.output.split('\n').slice(1)).toEqual(later.output.split('\n').slice(1));
    expect(later.output.split('\n').slice(1, 3)).toEqual([home, '[unset] [unset]']);
    expect(first.output).not.toContain(secret);
    expect(first.output).not.toContain('profile-exit-trap');
    expect(first.output).not.toContain('fd-3-open');
    expect(first.output).not.toContain('from-a-profile-job');
    expect(existsSync(join(home, 'logout-runs'))).toBe(false);
  });

  it('withholds what the environment policy withholds, as a command through the snapshot does', async () => {
    const secret = `sk-ue-${randomBytes(6).toString('hex')}`;
    const home = homes({
      '.profile': `export MY_API_KEY=${secret}\nexport UE_HELD=from-the-profile\nexport UE_SEEN=yes\nsleep 0.3\n`,
    });
    const m = manager({
      defaultShell: '/bin/bash',
      cwd: home,
      sandbox: 'danger-full-access',
      // UE_HELD starts set, and the policy withholds it: the profile's value of it is not the command's.
      env: { set: { HOME: home, UE_HELD: 'as-started' }, exclude: ['UE_HELD'] },
    });
    const warming = m.warmUp();
    const show = `${WHICH_PROCESS}\necho "[\${MY_API_KEY-unset}] [$UE_HELD] [$UE_SEEN]"`;
    const first = await m.execCommand({ command: show, yieldTimeMs: 5_000 });
    await warming;
    const later = await m.execCommand({ command: show });
    expect(first).toMatchObject({ output: 'started-with-the-capture\n[unset] [as-started] [yes]\n', exitCode: 0 });
    expect(later).toMatchObject({ output: 'started-for-the-call\n[unset] [as-started] [yes]\n', exitCode: 0 });
  });

  it('is not taken when the profile put its stderr to another use: the command is spawned', async () => {
    const home = homes({ '.profile': `exec 9>"$HOME/fd9.log"\nsleep 0.3\nexport UE_SLOW=yes\n` });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const first = await m.execCommand({
      command: `${WHICH_PROCESS}\necho "[$UE_SLOW]"; echo to-stderr >&2`,
      yieldTimeMs: 5_000,
    });
    await warming;
    expect(first).toMatchObject({ exitCode: 0 });
    expect(first.output.split('\n').sort()).toEqual(['', '[yes]', 'started-for-the-call', 'to-stderr']);
    expect(readFileSync(join(home, 'fd9.log'), 'utf8')).toBe('');
  });

  it('ends without running ~/.bash_logout when no call takes it', async () => {
    const marker = 34 + Math.floor(Math.random() * 1000) / 1000;
    const home = homes({
      '.profile': `sleep ${marker} &\n`,
      '.bash_logout': 'echo logout >> "$HOME/logout-runs"\n',
    });
    const m = coldManagerIn(home);
    await m.warmUp();
    // The capture has ended once what its profile started has been ended with it.
    await vi.waitFor(() => expect(processesRunning(`sleep ${marker}`)).toEqual([]), PATIENT);
    expect(existsSync(join(home, 'logout-runs'))).toBe(false);
  });

  it("ends its profile's jobs when it takes the command, and is ended with its session", async () => {
    const marker = 32 + Math.floor(Math.random() * 1000) / 1000;
    const own = marker + 1;
    const home = homes({ '.profile': `sleep ${marker} &\nsleep 0.3\n` });
    const m = coldManagerIn(home);
    const warming = m.warmUp();
    const first = await m.execCommand({ command: `${WHICH_PROCESS}\nsleep ${own} &\nsleep 30`, yieldTimeMs: 1_500 });
    expect(first).toMatchObject({ state: 'running', output: 'started-with-the-capture\n' });
    if (first.state !== 'running') throw new Error('the first call should still run');
    await warming;
    // As with a capture nobody takes: what its profile left running is ended.
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
    expect(processesRunning(`sleep ${own}`)).not.toEqual([]);
    await m.closeSession(first.sessionId);
    await vi.waitFor(() => expect(processesRunning(`sleep ${own}`)).toEqual([]), PATIENT);
  });
});

describe('an executor elsewhere', () => {
  /** A remote executor: the login shell runs on its side, where no snapshot of ours applies. */
  class RemoteExecutor extends FakeExecutor {
    readonly location = 'ws://10.0.0.2:8700';
  }

  it('gets the login command as asked, the snapshot left to it, and no capture runs here', async () => {
    const executor = new RemoteExecutor();
    const m = manager({ executor, defaultShell: '/bin/bash' });
    const call = m.execCommand({ command: 'echo hi', yieldTimeMs: 10_000 });
    const proc = await vi.waitFor(() => executor.process(0));
    proc.print('hi\n');
    proc.exit(0);
    expect(await call).toMatchObject({ output: 'hi\n', exitCode: 0, warnings: [] });
    expect(executor.processes.map((p) => p.spawnOptions.argv)).toEqual([['/bin/bash', '-lc', 'echo hi']]);
    expect(executor.requests).toMatchObject([
      { command: { script: 'echo hi', shell: '/bin/bash', login: true }, shellSnapshot: true },
    ]);
  });
});

const PROBE = '/etc/ue-snapshot-probe';

describe.skipIf(NO_SANDBOX !== undefined)(titled('in the sandbox', NO_SANDBOX), () => {
  const ws = useWorkspace();
  // Only there if the capture escaped the sandbox (this suite may run as root): never leave it behind.
  afterAll(() => rmSync(PROBE, { force: true }));

  it('runs a login command through a snapshot taken inside the sandbox', async () => {
    const { line, value } = mark();
    const home = homes({
      '.profile': [
        line,
        COUNTED,
        'export UE_SANDBOXED=yes',
        `if touch ${PROBE} 2>/dev/null; then export UE_TOUCHED=yes; else export UE_TOUCHED=no; fi`,
      ].join('\n'),
    });
    const m = manager({
      defaultShell: '/bin/bash',
      cwd: ws.dir,
      sandbox: 'workspace-write',
      env: { set: { HOME: home } },
    });
    await m.warmUp();
    const reply = await m.execCommand({ command: 'echo "$UE_SANDBOXED $UE_TOUCHED"' });
    expect(reply).toMatchObject({ output: 'yes no\n', exitCode: 0, warnings: [] });
    expect(existsSync(PROBE)).toBe(false);
    // The profile ran once, for the capture: what the command saw is what the capture saw.
    expect(profileRuns(home)).toBe(1);
    expect(snapshotsContaining(value)).toHaveLength(1);
  });

  for (const { backend, skip } of BACKENDS)
    it.skipIf(skip !== undefined)(
      titled(
        `on ${backend}: a call that came while the snapshot was taken runs in the capture's shell, inside the sandbox`,
        skip,
      ),
      async () => {
        // A file of this test's own, outside every writable root of the sandbox.
        const outside = mkdtempSync('/var/tmp/ue-snapshot-outside-');
        const target = join(outside, 'target');
        writeFileSync(target, 'original\n');
        try {
          const home = homes({ '.profile': `${COUNTED}sleep 0.3\nexport UE_SLOW=yes\n` });
          const m = manager({
            defaultShell: '/bin/bash',
            cwd: ws.dir,
            sandbox: 'workspace-write',
            sandboxBackend: backend,
            env: { set: { HOME: home } },
          });
          const warming = m.warmUp();
          const reply = await m.execCommand({
            command: [
              WHICH_PROCESS,
              `(echo changed > ${target}) 2>/dev/null && echo escaped || echo refused`,
              'echo inside > written && echo wrote-workspace',
            ].join('\n'),
            yieldTimeMs: 5_000,
          });
          await warming;
          expect(reply).toMatchObject({ output: 'started-with-the-capture\nrefused\nwrote-workspace\n', exitCode: 0 });
          expect(readFileSync(target, 'utf8')).toBe('original\n');
          expect(readFileSync(join(ws.dir, 'written'), 'utf8')).toBe('inside\n');
          expect(profileRuns(home)).toBe(1);
        } finally {
          rmSync(outside, { recursive: true, force: true });
        }
      },
    );

  it('keeps its snapshots where a sandboxed command cannot change them', async () => {
    const { line, value } = mark();
    const home = homes({ '.profile': `${line}\n` });
    const m = manager({
      defaultShell: '/bin/bash',
      cwd: ws.dir,
      sandbox: 'workspace-write',
      env: { set: { HOME: home } },
    });
    await m.warmUp();
    expect((await m.execCommand({ command: 'true' })).exitCode).toBe(0);
    const [file] = snapshotsContaining(value);
    // In the user's private root, which every sandbox keeps read-only: otherwise a sandboxed command could add code
    // that a later command approved to run outside the sandbox loads.
    expect(file!.startsWith(`${stateRoot()}/`)).toBe(true);
    const before = readFileSync(file!, 'utf8');
    const attempt = await m.execCommand({ command: `echo 'echo INJECTED' >> ${file}`, login: false });
    expect(attempt.exitCode).not.toBe(0);
    expect(readFileSync(file!, 'utf8')).toBe(before);
  });
});
