import { describe, expect, it } from 'vitest';
import { readManagerConfig, resolveManagerOptions } from '../../src/cli/manager-config.js';

const files = (content: Record<string, unknown>) => (path: string) => {
  if (!(path in content)) throw new Error(`ENOENT: no such file, open '${path}'`);
  return typeof content[path] === 'string' ? (content[path] as string) : JSON.stringify(content[path]);
};

describe('resolveManagerOptions', () => {
  it('gives no options when nothing is set, so the manager defaults apply', () => {
    expect(resolveManagerOptions({})).toEqual({});
  });

  it('takes a config file and lets flags override it', () => {
    const read = files({
      'ue.json': {
        cwd: '/srv',
        shell: '/bin/sh',
        returnOn: 'input-wait',
        maxSessions: 8,
        maxWriteBytes: 4096,
        env: { inherit: 'core', exclude: ['AWS_*'], set: { A: 'file', B: 'file' } },
      },
    });
    expect(
      resolveManagerOptions(
        { config: 'ue.json', shell: '/bin/bash', returnOn: 'deadline', envExclude: ['GH_*'], envSet: { B: 'flag' } },
        read,
      ),
    ).toEqual({
      cwd: '/srv',
      defaultShell: '/bin/bash',
      returnOn: 'deadline',
      maxSessions: 8,
      maxWriteBytes: 4096,
      env: { inherit: 'core', exclude: ['AWS_*', 'GH_*'], set: { A: 'file', B: 'flag' } },
    });
  });

  it('turns env flags into an env policy', () => {
    expect(resolveManagerOptions({ envInherit: 'none', envKeepSecrets: true, envIncludeOnly: ['PATH'] })).toEqual({
      env: { inherit: 'none', keepSecrets: true, includeOnly: ['PATH'] },
    });
  });
});

describe('readManagerConfig', () => {
  it('names the file and the problem when the JSON is broken', () => {
    expect(() => readManagerConfig('bad.json', files({ 'bad.json': '{nope' }))).toThrow(/cannot read config bad\.json/);
  });

  it('refuses unknown keys and wrong types, naming each', () => {
    const read = files({ 'ue.json': { maxSesions: 3, env: { inherit: 'most' } } });
    expect(() => readManagerConfig('ue.json', read)).toThrow(/invalid config ue\.json: .*maxSesions/);
    expect(() => readManagerConfig('ue.json', read)).toThrow(/env\.inherit/);
  });

  it('says when the file does not exist', () => {
    expect(() => readManagerConfig('missing.json', files({}))).toThrow(/cannot read config missing\.json: ENOENT/);
  });
});
