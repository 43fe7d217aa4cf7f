import { describe, expect, it } from 'vitest';
import { readManagerConfig, resolveManagerOptions } from '../../src/cli/manager-config.js';
import { parseCli } from '../../src/cli/parse-args.js';

const files = (content: Record<string, unknown>) => (path: string) => {
  if (!(path in content)) throw new Error(`ENOENT: no such file, open '${path}'`);
  return typeof content[path] === 'string' ? (content[path] as string) : JSON.stringify(content[path]);
};

/** The ManagerOptions a command line gives, with `ue.json` read from `file`. */
function optionsFrom(argv: string[], file: Record<string, unknown> = {}) {
  const command = parseCli(['mcp', ...argv]);
  if (command.kind !== 'mcp') throw new Error(`not an mcp command: ${command.kind}`);
  return resolveManagerOptions(command.manager, files({ 'ue.json': file }));
}

describe('resolveManagerOptions', () => {
  it('gives no options when nothing is set, so the manager defaults apply', () => {
    expect(resolveManagerOptions({ settings: {} })).toEqual({});
  });

  it('takes a config file keyed by setting name and lets flags override it', () => {
    const file = {
      cwd: '/srv',
      defaultShell: '/bin/sh',
      returnOn: 'input-wait',
      maxSessions: 8,
      maxWriteBytes: 4096,
      env: { inherit: 'core', keepSecrets: true },
    };
    expect(
      optionsFrom(
        ['--config', 'ue.json', '--shell', '/bin/bash', '--return-on', 'deadline', '--max-sessions', '5'],
        file,
      ),
    ).toEqual({
      cwd: '/srv',
      defaultShell: '/bin/bash',
      returnOn: 'deadline',
      maxSessions: 5,
      maxWriteBytes: 4096,
      env: { inherit: 'core', keepSecrets: true },
    });
  });

  it('adds repeated flags to the file lists and merges --env-set into its map, flags winning', () => {
    const file = { env: { exclude: ['AWS_*'], includeOnly: ['PATH'], set: { A: 'file', B: 'file' } } };
    const argv = ['--config', 'ue.json', '--env-exclude', 'GH_*', '--env-include-only', 'HOME'];
    expect(optionsFrom([...argv, '--env-set', 'B=flag', '--env-set', 'C=flag'], file)).toEqual({
      env: { exclude: ['AWS_*', 'GH_*'], includeOnly: ['PATH', 'HOME'], set: { A: 'file', B: 'flag', C: 'flag' } },
    });
  });

  it('turns env flags into an env policy', () => {
    expect(optionsFrom(['--env-inherit', 'none', '--env-keep-secrets', '--env-include-only', 'PATH'])).toEqual({
      env: { inherit: 'none', keepSecrets: true, includeOnly: ['PATH'] },
    });
    expect(optionsFrom(['--env-set', 'A=1', '--env-set', 'B=2'])).toEqual({ env: { set: { A: '1', B: '2' } } });
  });
});

describe('readManagerConfig', () => {
  it('keeps only what the file says, so no default it did not name can override a flag', () => {
    const read = files({ 'ue.json': { maxSessions: 8, env: {} } });
    expect(readManagerConfig('ue.json', read)).toEqual({ maxSessions: 8 });
    expect(optionsFrom(['--config', 'ue.json', '--cwd', '/flag'], { env: { inherit: 'all' } })).toEqual({
      cwd: '/flag',
      env: { inherit: 'all' },
    });
  });

  it('names the file and the problem when the JSON is broken', () => {
    expect(() => readManagerConfig('bad.json', files({ 'bad.json': '{nope' }))).toThrow(/cannot read config bad\.json/);
  });

  it('refuses an unknown key, naming it and the keys that would do', () => {
    const read = files({ 'ue.json': { shell: '/bin/sh' } });
    expect(() => readManagerConfig('ue.json', read)).toThrow(
      /^invalid config ue\.json: unknown key "shell" \(known: cwd, defaultShell, .*, env, sandbox, .*, approvalPolicy\)$/,
    );
    const nested = files({ 'ue.json': { env: { inherits: 'all' } } });
    expect(() => readManagerConfig('ue.json', nested)).toThrow(/unknown key "env\.inherits" \(known: inherit, /);
  });

  it('names each key of the wrong type with what it expected and what came', () => {
    const read = files({ 'ue.json': { maxSessions: '3', env: { inherit: 'most' } } });
    expect(() => readManagerConfig('ue.json', read)).toThrow(
      'invalid config ue.json: maxSessions: expected a whole number of 1 or more, got "3" (string); ' +
        'env.inherit: expected all, core or none, got "most" (string)',
    );
  });

  it('says when the file does not exist', () => {
    expect(() => readManagerConfig('missing.json', files({}))).toThrow(/cannot read config missing\.json: ENOENT/);
  });
});
