import { describe, expect, it } from 'vitest';
import type { SandboxPolicy } from '../../src/sandbox/policy.js';
import { fromWireSandbox, toWireSandbox } from '../../src/exec-server/sandbox-wire.js';
import type { WireSandbox } from '../../src/exec-server/protocol.js';

const special = (kind: string, access: string, subpath?: string) => ({
  path: { type: 'special', value: subpath ? { kind, subpath } : { kind } },
  access,
  ...(subpath ? { missing_path_behavior: 'skip' } : {}),
});
const PROTECTED = ['.git', '.agents', '.codex', '.aws'].map((name) => special('project_roots', 'read', name));
const TAIL = {
  windowsSandboxLevel: 'disabled',
  windowsSandboxProxySettingsMode: 'reconcile',
  useLegacyLandlock: false,
};

/**
 * What the pinned Codex (test/clients/package.json) sends for workspace-write with writable_roots = ["/var/tmp/extra"]
 * (captured via the tap).
 */
const CODEX_WORKSPACE_WRITE = {
  permissions: {
    type: 'managed',
    file_system: {
      type: 'restricted',
      entries: [
        special('root', 'read'),
        special('project_roots', 'write'),
        special('slash_tmp', 'write'),
        special('tmpdir', 'write'),
        { path: { type: 'path', path: 'file:///var/tmp/extra' }, access: 'write' },
        ...PROTECTED,
      ],
    },
    network: 'restricted',
  },
  cwd: 'file:///home/dev/proj',
  workspaceRoots: ['file:///home/dev/proj', 'file:///var/tmp/extra'],
  ...TAIL,
} as WireSandbox;

const policy = (mode: SandboxPolicy['mode'], extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  mode,
  network: 'off',
  allowedDomains: [],
  workspace: '/home/dev/proj',
  writableRoots: [],
  ...extra,
});

describe('toWireSandbox', () => {
  it('gives exactly what Codex sends for workspace-write, extra writable roots included', () => {
    expect(toWireSandbox(policy('workspace-write', { writableRoots: ['/var/tmp/extra'] }), '/home/dev/proj')).toEqual(
      CODEX_WORKSPACE_WRITE,
    );
  });

  it('gives the root read-only for read-only, network enabled when on, and null for no sandbox', () => {
    expect(toWireSandbox(policy('read-only'), '/home/dev/proj')).toEqual({
      permissions: {
        type: 'managed',
        file_system: { type: 'restricted', entries: [special('root', 'read')] },
        network: 'restricted',
      },
      cwd: 'file:///home/dev/proj',
      workspaceRoots: ['file:///home/dev/proj'],
      ...TAIL,
    });
    expect(toWireSandbox(policy('workspace-write', { network: 'on' }), '/x')?.permissions.network).toBe('enabled');
    expect(toWireSandbox(policy('danger-full-access'), '/x')).toBeNull();
  });

  it('writes paths with spaces as percent-encoded URIs', () => {
    const wire = toWireSandbox(policy('workspace-write', { workspace: '/a b' }), '/a b')!;
    expect(wire.workspaceRoots).toEqual(['file:///a%20b']);
  });
});

describe('fromWireSandbox', () => {
  it("reads Codex's workspace-write object as our policy", () => {
    expect(fromWireSandbox(CODEX_WORKSPACE_WRITE, '/somewhere')).toEqual(
      policy('workspace-write', { writableRoots: ['/var/tmp/extra'] }),
    );
  });

  it('reads root-only as read-only, enabled network as on, and nothing as no sandbox', () => {
    const readOnly = toWireSandbox(policy('read-only'), '/home/dev/proj')!;
    expect(fromWireSandbox(readOnly, '/cwd')).toEqual(policy('read-only'));
    const noRoots = { ...readOnly, workspaceRoots: [] };
    expect(fromWireSandbox(noRoots, '/cwd')?.workspace).toBe('/cwd');
    const open = {
      ...CODEX_WORKSPACE_WRITE,
      permissions: { ...CODEX_WORKSPACE_WRITE.permissions, network: 'enabled' },
    };
    expect(fromWireSandbox(open as WireSandbox, '/cwd')?.network).toBe('on');
    expect(fromWireSandbox(null, '/cwd')).toBeUndefined();
    expect(fromWireSandbox(undefined, '/cwd')).toBeUndefined();
    const unrestricted = { ...readOnly, permissions: { type: 'managed', file_system: { type: 'unrestricted' } } };
    expect(fromWireSandbox(unrestricted as WireSandbox, '/cwd')).toBeUndefined();
  });

  it('keeps cwd read-only when only plain paths are writable', () => {
    const wire = toWireSandbox(policy('read-only'), '/home/dev/proj')!;
    wire.permissions.file_system = {
      type: 'restricted',
      entries: [special('root', 'read'), { path: { type: 'path', path: '/data' }, access: 'write' }] as never,
    };
    expect(fromWireSandbox(wire, '/home/dev/proj')).toMatchObject({ mode: 'workspace-write', workspace: '/data' });
  });

  it('round-trips every policy it can express', () => {
    const policies = [
      policy('read-only'),
      policy('read-only', { network: 'on' }),
      policy('workspace-write'),
      policy('workspace-write', { network: 'on', writableRoots: ['/var/tmp/a', '/srv/b c'] }),
    ];
    for (const p of policies) expect(fromWireSandbox(toWireSandbox(p, '/cwd'), '/cwd')).toEqual(p);
  });

  it('says what is wrong with a shape it cannot read', () => {
    expect(() => fromWireSandbox({ permissions: null } as never, '/cwd')).toThrow(/permissions/);
    const relative = { ...CODEX_WORKSPACE_WRITE, workspaceRoots: ['proj'] };
    expect(() => fromWireSandbox(relative, '/cwd')).toThrow('invalid URI: relative URL without a base');
  });
});
