import { describe, expect, it } from 'vitest';
import { bwrapArgv, planMounts, writableRoots } from '../../src/sandbox/bwrap.js';
import { sandboxPolicy } from './sandbox-helpers.js';

const policy = sandboxPolicy;
const same = (path: string) => path;

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
    const plan = planMounts(['/w'], 'off', (path) => (path === '/w/.git' ? 'present' : 'missing'));
    expect(plan.readOnly).toEqual(['/w/.git']);
    expect(plan.masked).toEqual(['/w/.agents', '/w/.codex', '/w/.aws']);
  });

  it('masks an empty folder (a mount point another sandbox made, maybe gone by the time it starts)', () => {
    const plan = planMounts(['/w'], 'off', (path) => (path === '/w/.codex' ? 'empty' : 'present'));
    expect(plan.masked).toEqual(['/w/.codex']);
  });
});

describe('bwrapArgv', () => {
  it('read-only root, writable binds, then protections, namespaces, and the command', () => {
    const plan = planMounts(['/w'], 'off', (path) => (path === '/w/.git' ? 'present' : 'missing'));
    const argv = bwrapArgv('/usr/bin/bwrap', plan, '/w/sub', ['bash', '-c', 'ls']);
    const text = argv.join(' ');
    expect(argv[0]).toBe('/usr/bin/bwrap');
    expect(text).toContain('--die-with-parent --ro-bind / / --dev /dev --bind /w /w --ro-bind /w/.git /w/.git');
    expect(text).toContain('--perms 555 --tmpfs /w/.agents --remount-ro /w/.agents');
    expect(text).toContain('--unshare-user --unshare-pid --unshare-ipc --unshare-net --proc /proc --cap-drop ALL');
    expect(argv.slice(-5)).toEqual(['/w/sub', '--', 'bash', '-c', 'ls']);
    expect(text.indexOf('--bind /w /w')).toBeLessThan(text.indexOf('--ro-bind /w/.git'));
  });

  it('network on: no network namespace of its own', () => {
    const argv = bwrapArgv(
      'bwrap',
      planMounts([], 'on', () => 'missing'),
      '/',
      ['true'],
    );
    expect(argv).not.toContain('--unshare-net');
    expect(argv).toContain('--unshare-pid');
  });
});
