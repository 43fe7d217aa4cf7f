import { afterEach, describe, expect, it, vi } from 'vitest';
import { UnifiedExecManager, sequentialIds, type ManagerOptions } from '../../src/index.js';
import { managerSettingsSchema, resolveSettings } from '../../src/manager/settings.js';
import { invalid } from '../helpers/manager.js';

describe('resolveSettings', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fills in every setting left out', () => {
    const settings = resolveSettings({});
    // approvalPolicy, defaultExecutor and sandboxBackend have no fixed default: on-request under a sandbox, none
    // without one; the first executor; the backend that works here (the manager decides all three).
    const decided = ['approvalPolicy', 'defaultExecutor', 'sandboxBackend'];
    for (const name of Object.keys(managerSettingsSchema.shape).filter((n) => !decided.includes(n))) {
      expect(settings[name as keyof typeof settings], name).toBeDefined();
    }
    expect(settings.approvalPolicy).toBeUndefined();
    expect(settings.defaultExecutor).toBeUndefined();
    expect(settings.sandboxBackend).toBeUndefined();
    expect(settings.executors).toEqual({});
    expect(settings).toMatchObject({
      cwd: process.cwd(),
      returnOn: 'input-wait',
      maxSessions: 64,
      maxBackgroundPollMs: 300_000,
      outputMaxBytes: 1024 * 1024,
      maxConcurrentSpawns: 4,
      maxTotalBufferedBytes: 64 * 1024 * 1024,
      maxWriteBytes: 1024 * 1024,
      sandbox: 'danger-full-access',
      network: 'off',
      allowedDomains: [],
      writableRoots: [],
    });
    expect(settings.env).toStrictEqual({ inherit: 'all', keepSecrets: false, exclude: [], set: {} });
  });

  it('takes undefined and null as no settings', () => {
    expect(resolveSettings(undefined)).toStrictEqual(resolveSettings({}));
    expect(resolveSettings(null)).toStrictEqual(resolveSettings({}));
  });

  it('uses $SHELL as the default shell, else /bin/bash', () => {
    vi.stubEnv('SHELL', '/usr/bin/zsh');
    expect(resolveSettings({}).defaultShell).toBe('/usr/bin/zsh');
    vi.stubEnv('SHELL', '');
    expect(resolveSettings({}).defaultShell).toBe('/bin/bash');
  });

  it('keeps a given value, and fills in the rest of a nested group', () => {
    const settings = resolveSettings({
      maxSessions: 3,
      returnOn: 'deadline',
      defaultShell: '/bin/sh',
      env: { inherit: 'core', set: { LANG: 'C' } },
    });
    expect(settings).toMatchObject({ maxSessions: 3, returnOn: 'deadline', defaultShell: '/bin/sh' });
    expect(settings.env).toStrictEqual({ inherit: 'core', keepSecrets: false, exclude: [], set: { LANG: 'C' } });
  });

  it('refuses a setting it does not know, naming it', () => {
    expect(invalid(() => resolveSettings({ maxSession: 3 }))).toBe(
      'Invalid manager settings: unknown setting `maxSession`',
    );
    expect(invalid(() => resolveSettings({ env: { inheritt: 'all' } }))).toBe(
      'Invalid manager settings: `env`: unknown setting `inheritt`',
    );
    expect(invalid(() => resolveSettings(5))).toBe('Invalid manager settings: expected an object, got 5 (number)');
  });

  it('refuses a value of the wrong type, naming the setting and what came', () => {
    expect(invalid(() => resolveSettings({ maxSessions: '5' }))).toBe(
      'Invalid manager settings: `maxSessions`: expected a whole number of 1 or more, got "5" (string)',
    );
    expect(invalid(() => resolveSettings({ maxSessions: 0 }))).toBe(
      'Invalid manager settings: `maxSessions`: expected a whole number of 1 or more, got 0 (number)',
    );
    expect(invalid(() => resolveSettings({ maxSessions: 1.5 }))).toBe(
      'Invalid manager settings: `maxSessions`: expected a whole number of 1 or more, got 1.5 (number)',
    );
    expect(invalid(() => resolveSettings({ returnOn: 'never' }))).toBe(
      'Invalid manager settings: `returnOn`: expected input-wait or deadline, got "never" (string)',
    );
    expect(invalid(() => resolveSettings({ cwd: '' }))).toBe(
      'Invalid manager settings: `cwd`: expected a non-empty string, got "" (string)',
    );
  });

  it('names a nested setting by its path', () => {
    expect(invalid(() => resolveSettings({ env: { inherit: 'some' } }))).toBe(
      'Invalid manager settings: `env.inherit`: expected all, core or none, got "some" (string)',
    );
    expect(invalid(() => resolveSettings({ env: { set: { LANG: 1 } } }))).toBe(
      'Invalid manager settings: `env.set.LANG`: expected a string, got 1 (number)',
    );
  });

  it('reports every wrong setting in one error', () => {
    expect(invalid(() => resolveSettings({ maxSessions: -1, env: { keepSecrets: 'yes' } }))).toBe(
      'Invalid manager settings: `maxSessions`: expected a whole number of 1 or more, got -1 (number); ' +
        '`env.keepSecrets`: expected true or false, got "yes" (string)',
    );
  });

  it('checks the sandbox settings: modes by name, allowlist entries as domains', () => {
    expect(invalid(() => resolveSettings({ sandbox: 'workspace' }))).toMatch(
      /^Invalid manager settings: `sandbox`: expected read-only, workspace-write, danger-full-access, got "workspace"/,
    );
    expect(invalid(() => resolveSettings({ allowedDomains: ['npmjs.org', 'https://pypi.org'] }))).toMatch(
      /`allowedDomains\.1`: Expected a domain like `example.com` or `\*\.example\.com` without a scheme/,
    );
    expect(resolveSettings({ allowedDomains: ['*.github.com'] }).allowedDomains).toEqual(['*.github.com']);
    expect(invalid(() => resolveSettings({ approvalPolicy: 'sometimes' }))).toMatch(
      /`approvalPolicy`: expected untrusted/,
    );
  });
});

describe('new UnifiedExecManager(options)', () => {
  /** The INVALID_ARGUMENT message the constructor throws; a manager made by mistake is shut down all the same. */
  async function refused(options: ManagerOptions): Promise<string> {
    let manager: UnifiedExecManager | undefined;
    try {
      return invalid(() => (manager = new UnifiedExecManager(options)));
    } finally {
      await manager?.shutdown();
    }
  }

  it('refuses a wrong setting with INVALID_ARGUMENT naming it', async () => {
    expect(await refused({ maxSessions: 0 })).toBe(
      'Invalid manager settings: `maxSessions`: expected a whole number of 1 or more, got 0 (number)',
    );
  });

  it('refuses a misspelt setting instead of ignoring it', async () => {
    expect(await refused({ maxSesions: 3 } as ManagerOptions)).toMatch(/unknown setting `maxSesions`/);
  });

  it('takes settings and injections together', async () => {
    let manager: UnifiedExecManager | undefined;
    expect(() => {
      manager = new UnifiedExecManager({ maxSessions: 2, idGenerator: sequentialIds(), clock: () => 0 });
    }).not.toThrow();
    await manager?.shutdown();
  });
});
