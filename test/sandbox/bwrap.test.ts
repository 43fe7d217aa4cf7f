import { describe, expect, it } from 'vitest';
import { bwrapArgv, planMounts, writableRoots, type MountFacts, type PathKind } from '../../src/sandbox/bwrap.js';
import { sandboxPolicy } from './sandbox-helpers.js';

const policy = sandboxPolicy;
const same = (path: string) => path;
/** A machine whose protected paths are as `kind` says and whose kernel has /proc/sys and /proc/keys only. */
const facts = (kind: (path: string) => PathKind, more: Partial<MountFacts> = {}): MountFacts => ({
  kind,
  kernelPath: (path) => ({ '/proc/sys': 'dir' as const, '/proc/keys': 'file' as const })[path],
  ...more,
});

describe('writableRoots', () => {
  it('workspace-write: workspace, /tmp, $TMPDIR and extra roots, resolved, existing, once each', () => {
    const real = (path: string) => ({ '/w': '/w', '/tmp': '/tmp', '/t2': '/tmp', '/x': '/data/x' })[path];
    expect(writableRoots(policy({ writableRoots: ['/x', '/missing'] }), '/t2', real)).toEqual([
      '/w',
      '/tmp',
      '/data/x',
    ]);
  });

  it('read-only has none', () => {
    expect(writableRoots(policy({ mode: 'read-only' }), '/tmp', same)).toEqual([]);
  });
});

describe('planMounts', () => {
  it('binds protected names with content read-only and masks missing ones', () => {
    const plan = planMounts(
      ['/w'],
      'off',
      facts((path) => (path === '/w/.git' ? 'present' : 'missing')),
    );
    expect(plan.readOnly).toEqual(['/w/.git']);
    expect(plan.masked).toEqual(['/w/.agents', '/w/.codex', '/w/.aws', '/w/HEAD']);
  });

  it('keeps a root from becoming a bare repository, and refuses one that is already', () => {
    expect(
      planMounts(
        ['/w'],
        'off',
        facts(() => 'missing'),
      ).masked,
    ).toContain('/w/HEAD');
    const headFile = planMounts(
      ['/w'],
      'off',
      facts((path) => (path === '/w/HEAD' ? 'present' : 'missing')),
    );
    expect(headFile.readOnly).toEqual(['/w/HEAD']);
    const bare = planMounts(
      ['/w'],
      'off',
      facts((path) => (['/w/HEAD', '/w/objects'].includes(path) ? 'present' : 'missing')),
    );
    expect(bare.unprotectable).toEqual(['/w']);
  });

  it("masks another user's bare repository in a shared scratch root instead of refusing the sandbox", () => {
    const planted = ['/tmp/HEAD', '/tmp/objects', '/tmp/refs'];
    const plan = planMounts(
      ['/tmp'],
      'off',
      facts((path) => (planted.includes(path) ? 'present' : 'missing'), { theirs: (path) => planted.includes(path) }),
    );
    expect(plan.unprotectable).toEqual([]);
    expect(plan.readOnly).toEqual(planted);
    expect(plan.maskedFiles).toEqual(['/tmp/commondir', '/tmp/config', '/tmp/hooks']);
    // One part of its own is no more the server's repository: masked all the same.
    const mixed = planMounts(
      ['/tmp'],
      'off',
      facts((path) => (['/tmp/HEAD', '/tmp/objects'].includes(path) ? 'present' : 'missing'), {
        theirs: (path) => path === '/tmp/objects',
      }),
    );
    expect(mixed.unprotectable).toEqual([]);
    expect(mixed.maskedFiles).toEqual(['/tmp/refs', '/tmp/commondir', '/tmp/config', '/tmp/hooks']);
  });

  it('keeps what would complete a repository from being made beside a HEAD that stands, as files', () => {
    // A lone HEAD, and the empty file a file mask left (an empty file is no part of a repository).
    const kinds: Record<string, PathKind> = { '/w/HEAD': 'present', '/w/refs': 'empty-file' };
    const plan = planMounts(
      ['/w'],
      'off',
      facts((path) => kinds[path] ?? 'missing'),
    );
    expect(plan.unprotectable).toEqual([]);
    expect(plan.readOnly).toEqual(['/w/HEAD']);
    expect(plan.maskedFiles).toEqual(['/w/objects', '/w/refs', '/w/commondir', '/w/config', '/w/hooks']);
    const link = planMounts(
      ['/tmp'],
      'off',
      facts((path) => (path === '/tmp/HEAD' ? 'foreign-link' : 'missing')),
    );
    expect(link.maskedFiles).toEqual(['/tmp/objects', '/tmp/refs', '/tmp/commondir', '/tmp/config', '/tmp/hooks']);
    const argv = bwrapArgv('bwrap', link, '/', ['true']).join(' ');
    expect(argv).toContain('--ro-bind /dev/null /tmp/objects --ro-bind /dev/null /tmp/refs');
  });

  it('protects the folders pinned between nested roots as it protects the roots', () => {
    const plan = planMounts(
      ['/tmp/a/ws', '/tmp'],
      'off',
      facts(() => 'missing'),
    );
    expect(plan.masked).toEqual(expect.arrayContaining(['/tmp/.git', '/tmp/a/.git', '/tmp/a/HEAD', '/tmp/a/ws/.git']));
  });

  it("refuses a protected name that is a link the command could replace, and leaves another user's link alone", () => {
    const ours = planMounts(
      ['/w'],
      'off',
      facts((path) => (path === '/w/.git' ? 'link' : 'missing')),
    );
    expect(ours.unprotectable).toEqual(['/w/.git']);
    expect([...ours.readOnly, ...ours.masked]).not.toContain('/w/.git');
    const theirs = planMounts(
      ['/tmp'],
      'off',
      facts((path) => (path === '/tmp/.aws' ? 'foreign-link' : 'missing')),
    );
    expect(theirs.unprotectable).toEqual([]);
    expect([...theirs.readOnly, ...theirs.masked]).not.toContain('/tmp/.aws');
  });

  it('masks an empty folder (a mount point another sandbox made, maybe gone by the time it starts)', () => {
    const plan = planMounts(
      ['/w'],
      'off',
      facts((path) => (path === '/w/.codex' ? 'empty' : path.endsWith('HEAD') ? 'missing' : 'present')),
    );
    expect(plan.masked).toEqual(['/w/.codex', '/w/HEAD']);
  });
});

describe('planMounts: what a command cannot move or change', () => {
  const none = facts(() => 'missing');

  it('pins every folder between an outer writable root and one inside it, outermost first', () => {
    const plan = planMounts(['/tmp/a/b/ws', '/tmp'], 'off', none);
    expect(plan.writable).toEqual(['/tmp', '/tmp/a', '/tmp/a/b', '/tmp/a/b/ws']);
    expect(plan.masked).toContain('/tmp/a/b/ws/.git');
  });

  it('pins nothing for roots side by side', () => {
    expect(planMounts(['/w', '/tmp'], 'off', none).writable).toEqual(['/w', '/tmp']);
  });

  it('keeps a private folder read-only, pinned, when it lies inside a writable root', () => {
    const plan = planMounts(
      ['/w', '/tmp'],
      'off',
      facts(() => 'missing', { keepReadOnly: ['/tmp/x/ue-0'] }),
    );
    expect(plan.readOnly).toEqual(['/tmp/x/ue-0']);
    expect(plan.writable).toEqual(['/w', '/tmp', '/tmp/x']);
  });

  it('leaves a private folder outside every writable root to the read-only root', () => {
    const plan = planMounts(
      ['/w'],
      'off',
      facts((path) => (path.endsWith('HEAD') ? 'missing' : 'present'), { keepReadOnly: ['/run/ue-0'] }),
    );
    expect(plan.readOnly).toEqual(['/w/.git', '/w/.agents', '/w/.codex', '/w/.aws']);
    expect(plan.writable).toEqual(['/w']);
  });

  it("covers the kernel's knobs that exist here: folders read-only, files hidden", () => {
    const plan = planMounts([], 'off', none);
    expect(plan.kernelReadOnly).toEqual(['/proc/sys']);
    expect(plan.kernelMasked).toEqual([{ path: '/proc/keys', dir: false }]);
    const argv = bwrapArgv('bwrap', { ...plan, kernelMasked: [{ path: '/proc/acpi', dir: true }] }, '/', ['true']);
    expect(argv.join(' ')).toContain('--perms 000 --tmpfs /proc/acpi --remount-ro /proc/acpi');
  });
});

describe('bwrapArgv', () => {
  it('read-only root, writable binds, then protections, namespaces, and the command', () => {
    const plan = planMounts(
      ['/w'],
      'off',
      facts((path) => (path === '/w/.git' ? 'present' : 'missing')),
    );
    const argv = bwrapArgv('/usr/bin/bwrap', plan, '/w/sub', ['bash', '-c', 'ls']);
    const text = argv.join(' ');
    expect(argv[0]).toBe('/usr/bin/bwrap');
    expect(text).toContain('--die-with-parent --ro-bind / / --dev /dev --bind /w /w --ro-bind /w/.git /w/.git');
    expect(text).toContain('--perms 555 --tmpfs /w/.agents --remount-ro /w/.agents');
    expect(text).toContain(
      '--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net --proc /proc',
    );
    expect(text).toContain('--proc /proc --ro-bind /proc/sys /proc/sys --ro-bind /dev/null /proc/keys --cap-drop ALL');
    expect(argv.slice(-5)).toEqual(['/w/sub', '--', 'bash', '-c', 'ls']);
    expect(text.indexOf('--bind /w /w')).toBeLessThan(text.indexOf('--ro-bind /w/.git'));
  });

  it('reads the sandbox-wide seccomp filter from the fd it is given, before the command', () => {
    const argv = bwrapArgv(
      'bwrap',
      planMounts(
        [],
        'off',
        facts(() => 'missing'),
      ),
      '/',
      ['true'],
      10,
    );
    expect(argv.slice(-8)).toEqual(['--seccomp', '10', '--cap-drop', 'ALL', '--chdir', '/', '--', 'true']);
  });

  it('network on: no network namespace of its own', () => {
    const argv = bwrapArgv(
      'bwrap',
      planMounts(
        [],
        'on',
        facts(() => 'missing'),
      ),
      '/',
      ['true'],
    );
    expect(argv).not.toContain('--unshare-net');
    expect(argv).toContain('--unshare-pid');
  });
});
