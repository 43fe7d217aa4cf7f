import { describe, expect, it } from 'vitest';
import { CORE_ENV_NAMES, SESSION_ENV, buildEnv, isSecret, resolveProgram } from '../../src/spawn/env.js';

const parent = {
  HOME: '/home/me',
  PATH: '/usr/bin:/bin',
  USER: 'me',
  EDITOR: 'vim',
  MY_VAR: 'kept',
  OPENAI_API_KEY: 'sk-1',
  github_token: 'ghp-2',
  DbPassword: 'hunter2',
  AWS_SECRET_ACCESS_KEY: 'aws-3',
  KEYBOARD_LAYOUT: 'us',
  TERM: 'xterm-256color',
  NO_COLOR: '',
  UNSET: undefined,
};

describe('buildEnv', () => {
  it('inherits the parent environment and puts the session variables on top', () => {
    const env = buildEnv({}, parent);
    expect(env).toMatchObject({ HOME: '/home/me', PATH: '/usr/bin:/bin', EDITOR: 'vim', MY_VAR: 'kept' });
    expect(env).toMatchObject(SESSION_ENV);
  });

  it('sets the compat and beyond session variables, overriding what the parent had', () => {
    const env = buildEnv({}, parent);
    expect(env).toMatchObject({
      NO_COLOR: '1',
      TERM: 'dumb',
      LANG: 'C.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      COLORTERM: '',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      GH_PAGER: 'cat',
      CODEX_CI: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_EDITOR: 'true',
      DEBIAN_FRONTEND: 'noninteractive',
      PIP_NO_INPUT: '1',
    });
  });

  it('drops variables whose names contain KEY, SECRET, TOKEN or PASSWORD, in any case', () => {
    const env = buildEnv({}, parent);
    for (const name of ['OPENAI_API_KEY', 'github_token', 'DbPassword', 'AWS_SECRET_ACCESS_KEY', 'KEYBOARD_LAYOUT']) {
      expect(env).not.toHaveProperty(name);
    }
  });

  it('drops the secrets of the issue that the first name rule let through', () => {
    const secrets = {
      DATABASE_URL: 'postgres://u:pw@db.example:5432/app',
      MYSQL_PWD: 'pw',
      GH_PAT: 'github_pat_1',
      SENTRY_DSN: 'https://abc@o1.ingest.sentry.io/2',
      NPM_CONFIG__AUTH: 'dTpw',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/T0/B0/x',
      CREDENTIALS: '{"user":"u","pass":"pw"}',
      PASSWD: 'pw',
    };
    const env = buildEnv({}, { ...secrets, HOME: '/home/me' });
    for (const name of Object.keys(secrets)) expect(env).not.toHaveProperty(name);
    expect(env).toHaveProperty('HOME');
  });

  it('drops names by the widened rule, in any case', () => {
    for (const name of [
      'PASSPHRASE',
      'db_pass',
      'PGPASS',
      'DB_PWD',
      'AZURE_DEVOPS_PAT',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'BASIC_AUTH',
      'GITHUB_OAUTH',
      'HTTP_AUTHORIZATION',
      'PROXY_AUTHORISATION',
      'SSH_AUTH_SOCK',
      'RAVEN_DSN',
      'DISCORD_WEBHOOK',
    ]) {
      expect(isSecret(name, 'x'), name).toBe(true);
    }
  });

  it('keeps the working directory, paths, authors and the X cookie path, which the rule would otherwise catch', () => {
    const kept = {
      PATH: '/usr/bin:/bin',
      PWD: '/work',
      OLDPWD: '/home/me',
      HOME: '/home/me',
      LANG: 'en_US.UTF-8',
      NODE_PATH: '/usr/lib/node_modules',
      XAUTHORITY: '/run/user/1000/gdm/Xauthority',
      GIT_AUTHOR_NAME: 'Me',
      GIT_AUTHOR_EMAIL: 'me@example.com',
      npm_package_author_name: 'Me',
      SERVICE_URL: 'https://api.example.com:8443/v1?q=a@b',
      NPM_REGISTRY: 'https://registry.npmjs.org/@types/node',
      MAILTO: 'me@example.com',
      GIT_REMOTE: 'git@github.com:me/repo.git',
    };
    expect(buildEnv({}, kept)).toMatchObject({ ...kept, LANG: 'C.UTF-8' });
  });

  it('drops any variable whose value holds a URL with user-info, whatever its name', () => {
    for (const value of [
      'postgres://u:pw@db.example/app',
      'https://x-access-token:ghs_1@github.com/me/repo.git',
      'https://ghp_1@github.com/me/repo.git',
      'http://proxy-user:p%40ss@proxy.example:3128',
      'https://pypi.org/simple https://u:pw@pypi.example/simple',
      'redis://:pw@cache.example:6379/0',
    ]) {
      expect(isSecret('SOME_SETTING', value), value).toBe(true);
    }
    expect(isSecret('SOME_SETTING', 'https://@host.example/')).toBe(false);
  });

  it('keeps the newly caught secrets too when told to', () => {
    const parent = { DATABASE_URL: 'postgres://u:pw@db/app', MYSQL_PWD: 'pw', SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1' };
    expect(buildEnv({ keepSecrets: true }, parent)).toMatchObject(parent);
  });

  it('keeps secrets when told to', () => {
    const env = buildEnv({ keepSecrets: true }, parent);
    expect(env).toMatchObject({ OPENAI_API_KEY: 'sk-1', github_token: 'ghp-2', DbPassword: 'hunter2' });
  });

  it('skips variables the parent has no value for', () => {
    expect(buildEnv({}, parent)).not.toHaveProperty('UNSET');
  });

  it('inherits only the core variables with inherit: core', () => {
    const env = buildEnv({ inherit: 'core' }, parent);
    expect(env).toMatchObject({ HOME: '/home/me', PATH: '/usr/bin:/bin', USER: 'me' });
    expect(env).not.toHaveProperty('EDITOR');
    expect(env).not.toHaveProperty('MY_VAR');
    expect(CORE_ENV_NAMES).toContain('PATH');
  });

  it('inherits nothing with inherit: none, but still sets the session variables', () => {
    expect(buildEnv({ inherit: 'none' }, parent)).toEqual({ ...SESSION_ENV });
  });

  it('drops names matching an exclude glob, case-insensitively', () => {
    const env = buildEnv({ exclude: ['my_*', 'EDIT?R'] }, parent);
    expect(env).not.toHaveProperty('MY_VAR');
    expect(env).not.toHaveProperty('EDITOR');
    expect(env).toHaveProperty('HOME');
  });

  it('treats glob metacharacters other than * and ? literally', () => {
    const env = buildEnv({ exclude: ['P.TH', 'HOME+'] }, parent);
    expect(env).toHaveProperty('PATH');
    expect(env).toHaveProperty('HOME');
  });

  it('keeps only names matching includeOnly, after exclude', () => {
    const env = buildEnv({ includeOnly: ['PATH', 'H*', 'MY_*'], exclude: ['MY_*'] }, parent);
    const inherited = Object.keys(env).filter((name) => !(name in SESSION_ENV));
    expect(inherited.sort()).toEqual(['HOME', 'PATH']);
  });

  it('lets set win over everything, session variables included', () => {
    const env = buildEnv({ set: { TERM: 'xterm', MY_VAR: 'mine', OPENAI_API_KEY: 'explicit' } }, parent);
    expect(env).toMatchObject({ TERM: 'xterm', MY_VAR: 'mine', OPENAI_API_KEY: 'explicit' });
  });

  it('reads process.env when no parent is given', () => {
    expect(buildEnv().PATH).toBe(process.env.PATH);
  });
});

describe('buildEnv without session variables', () => {
  it('gives the filtered parent and set only (the exec-server envPolicy)', () => {
    const env = buildEnv({ inherit: 'core', set: { A: '1' } }, parent, { sessionEnv: false });
    expect(env).toEqual({ HOME: '/home/me', PATH: '/usr/bin:/bin', USER: 'me', A: '1' });
  });
});

describe('resolveProgram', () => {
  it("searches the environment's PATH, falls back to execvp's default, and takes paths relative to cwd", () => {
    expect(resolveProgram('sh', { PATH: '/nonexistent:/bin' }, '/')).toBe('/bin/sh');
    expect(resolveProgram('sh', {}, '/')).toBe('/bin/sh');
    expect(resolveProgram('./sh', {}, '/bin')).toBe('/bin/sh');
    expect(() => resolveProgram('sh', { PATH: '/nonexistent' }, '/')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
