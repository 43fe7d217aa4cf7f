import { describe, expect, it } from 'vitest';
import { TOO_LONG_TO_READ, TOO_MANY_FOLDERS, gitPlaces } from '../../src/approval/git-places.js';

const bash = (script: string): string[] => ['/usr/bin/bash', '-lc', script];
/** The folders gitPlaces finds for `argv` in /w, after /w itself, with how each is named. */
const named = (argv: string[], env: Record<string, string> = {}) => gitPlaces(argv, '/w', env).places.slice(1);

describe('gitPlaces', () => {
  it('starts with the command’s directory, and says whether git is named', () => {
    expect(gitPlaces(['git', 'status'], '/w/sub/', {})).toEqual({
      places: [{ folder: '/w/sub' }],
      configs: [],
      settings: [],
      atRunTime: [],
      namesGit: true,
    });
    expect(gitPlaces(bash('ls -la'), '/w', {}).namesGit).toBe(false);
    expect(gitPlaces(['/usr/bin/git', 'log'], '/w', {}).namesGit).toBe(true);
    expect(gitPlaces(bash('git-upload-pack .'), '/w', {}).namesGit).toBe(true);
  });

  it.each<[string, string[], { folder: string; named: string }[]]>([
    ['-C', ['git', '-C', '/tmp/x', 'status'], [{ folder: '/tmp/x', named: '-C /tmp/x' }]],
    [
      '-C twice, relative, then --git-dir',
      ['git', '-C', 'a', '-C', 'b', '--git-dir=.g', 'status'],
      [
        { folder: '/w/a', named: '-C a' },
        { folder: '/w/a/b', named: '-C b' },
        { folder: '/w/a/b/.g', named: '--git-dir .g' },
      ],
    ],
    [
      '--git-dir and --work-tree as separate words, past -c',
      ['git', '-c', 'x.y=z', '--git-dir', '/tmp/g', '--work-tree', '/tmp/t', 'status'],
      [
        { folder: '/tmp/g', named: '--git-dir /tmp/g' },
        { folder: '/tmp/t', named: '--work-tree /tmp/t' },
      ],
    ],
    ['cd', bash('cd /tmp/x && git status'), [{ folder: '/tmp/x', named: 'cd /tmp/x' }]],
    ['pushd', bash('pushd /tmp/x; git status'), [{ folder: '/tmp/x', named: 'pushd /tmp/x' }]],
    ['cd past its options', bash('cd -P -- /tmp/x && git status'), [{ folder: '/tmp/x', named: 'cd /tmp/x' }]],
    ['cd in a subshell', bash('(cd /tmp/x && git status)'), [{ folder: '/tmp/x', named: 'cd /tmp/x' }]],
    [
      'a relative -C after a relative cd, from each folder the script may be in',
      bash('cd sub || true; git -C ../other status'),
      [
        { folder: '/w/sub', named: 'cd sub' },
        { folder: '/other', named: '-C ../other' },
        { folder: '/w/other', named: '-C ../other' },
      ],
    ],
    ['GIT_DIR= before git', bash('GIT_DIR=/tmp/x git status'), [{ folder: '/tmp/x', named: 'GIT_DIR=/tmp/x' }]],
    ['export GIT_DIR=', bash('export GIT_DIR=/tmp/x; git log'), [{ folder: '/tmp/x', named: 'GIT_DIR=/tmp/x' }]],
    [
      'GIT_WORK_TREE and GIT_COMMON_DIR',
      bash('GIT_WORK_TREE=t GIT_COMMON_DIR="/tmp/c" git status'),
      [
        { folder: '/w/t', named: 'GIT_WORK_TREE=t' },
        { folder: '/tmp/c', named: 'GIT_COMMON_DIR=/tmp/c' },
      ],
    ],
    [
      'env with an assignment',
      ['env', 'GIT_DIR=/tmp/x', 'git', 'status'],
      [{ folder: '/tmp/x', named: 'GIT_DIR=/tmp/x' }],
    ],
    ['env -C', ['env', '-C', '/tmp/x', 'git', 'status'], [{ folder: '/tmp/x', named: 'env -C /tmp/x' }]],
    ['env --chdir=', bash('env --chdir=/tmp/x git status'), [{ folder: '/tmp/x', named: 'env -C /tmp/x' }]],
    [
      'a shell’s script inside the script',
      bash(`sh -c 'cd /tmp/x && git status'`),
      [{ folder: '/tmp/x', named: 'cd /tmp/x' }],
    ],
    [
      'a shell’s script in an argv',
      ['env', 'bash', '-c', 'git -C /tmp/x status'],
      [{ folder: '/tmp/x', named: '-C /tmp/x' }],
    ],
    [
      'a folder with a blank, as one word of an argv',
      ['git', '-C', '/tmp/a b', 'status'],
      [{ folder: '/tmp/a b', named: '-C /tmp/a b' }],
    ],
  ])('finds %s', (_, argv, expected) => {
    expect(named(argv).slice(0, expected.length)).toEqual(expected);
  });

  it('takes GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR from the call’s environment, from its directory', () => {
    expect(named(['git', 'status'], { GIT_DIR: 'g', GIT_COMMON_DIR: '/tmp/c', PATH: '/bin', HOME: '/h' })).toEqual([
      { folder: '/w/g', named: 'GIT_DIR=g in its environment' },
      { folder: '/tmp/c', named: 'GIT_COMMON_DIR=/tmp/c in its environment' },
    ]);
  });

  it('reads ~, $HOME and ${HOME} as the environment’s HOME, and a bare cd as going there', () => {
    const env = { HOME: '/home/me' };
    expect(named(bash('cd ~/p && git status'), env)).toEqual([{ folder: '/home/me/p', named: 'cd ~/p' }]);
    expect(named(bash('git -C $HOME status'), env)).toEqual([{ folder: '/home/me', named: '-C $HOME' }]);
    expect(named(bash('cd && git status'), env)).toEqual([{ folder: '/home/me', named: 'cd' }]);
    expect(named(bash('GIT_DIR=${HOME}/g git status'), env)).toEqual([
      { folder: '/home/me/g', named: 'GIT_DIR=${HOME}/g' },
    ]);
  });

  it('finds the config files and program folders git is pointed at, in the script or the call’s environment', () => {
    const configs = (argv: string[], env: Record<string, string> = {}) => gitPlaces(argv, '/w', env).configs;
    expect(configs(['git', 'status'], { HOME: '/home/me', XDG_CONFIG_HOME: '/x' })).toEqual([
      { folder: '/home/me/.gitconfig', named: 'HOME=/home/me in its environment' },
      { folder: '/home/me/.config/git/config', named: 'HOME=/home/me in its environment' },
      { folder: '/x/git/config', named: 'XDG_CONFIG_HOME=/x in its environment' },
    ]);
    expect(
      configs(
        bash(
          'export GIT_CONFIG_GLOBAL=g; env GIT_CONFIG_SYSTEM=/s GIT_CONFIG=/c GIT_TEMPLATE_DIR=/t git --exec-path=/e status',
        ),
      ),
    ).toEqual([
      { folder: '/w/g', named: 'GIT_CONFIG_GLOBAL=g' },
      { folder: '/s', named: 'GIT_CONFIG_SYSTEM=/s' },
      { folder: '/c', named: 'GIT_CONFIG=/c' },
      { folder: '/t', named: 'GIT_TEMPLATE_DIR=/t' },
      { folder: '/e', named: '--exec-path=/e' },
    ]);
    expect(gitPlaces(bash('HOME=$PWD git status'), '/w', {}).atRunTime).toEqual(['HOME=$PWD']);
  });

  it('notes the config a command gives git: -c, --config-env, GIT_CONFIG_COUNT and its keys, GIT_CONFIG_PARAMETERS', () => {
    const settings = (argv: string[], env: Record<string, string> = {}) => gitPlaces(argv, '/w', env).settings;
    expect(settings(['git', '-c', 'core.fsmonitor=x', '--config-env=alias.s=V', 'status'])).toEqual([
      '-c core.fsmonitor=x',
      '--config-env alias.s=V',
    ]);
    expect(settings(bash('GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log'))).toEqual([
      'GIT_CONFIG_COUNT=1',
      'GIT_CONFIG_KEY_0=core.pager',
      'GIT_CONFIG_VALUE_0=x',
    ]);
    expect(settings(['git', 'log'], { GIT_CONFIG_PARAMETERS: "'core.pager'='x'" })).toEqual([
      "GIT_CONFIG_PARAMETERS='core.pager'='x' in its environment",
    ]);
  });

  it('notes each folder only running the command tells, and looks at none of them', () => {
    const found = gitPlaces(bash('cd "$d" && git -C `pwd`/x status; GIT_DIR=/tmp/* git log; cd ~other'), '/w', {});
    expect(found.places).toEqual([{ folder: '/w' }]);
    expect(found.atRunTime).toEqual(['cd $d', 'GIT_DIR=/tmp/*', 'cd ~other']);
    expect(gitPlaces(bash('cd ~ && git status'), '/w', {}).atRunTime).toEqual(['cd ~']);
  });

  it('leaves `cd -` and options of cd alone, and -C of other programs', () => {
    expect(named(bash('cd - && make -C /tmp/x && tar -C /tmp/y -xf a.tar && git status'))).toEqual([]);
  });

  it('reads no command longer than the approval reads: it may name git, and picks its folders as it runs', () => {
    const found = gitPlaces(bash(`cd /tmp/x; ${'ls; '.repeat(40_000)}`), '/w', { GIT_DIR: '/tmp/g' });
    expect(found).toEqual({
      places: [{ folder: '/w' }, { folder: '/tmp/g', named: 'GIT_DIR=/tmp/g in its environment' }],
      configs: [],
      settings: [],
      atRunTime: [TOO_LONG_TO_READ],
      namesGit: true,
    });
  });

  it('works out a bounded number of folders: relative cds from 32 folders each stop counting, and say so', () => {
    const found = gitPlaces(bash(`${'cd a; '.repeat(300)}git status`), '/w', {});
    expect(found.places.length).toBeLessThanOrEqual(64);
    expect(found.atRunTime).toEqual([TOO_MANY_FOLDERS]);
  });

  it('looks at 64 folders at most, and says there were more', () => {
    const script = Array.from({ length: 100 }, (_, i) => `cd /d${i}`).join('; ');
    const found = gitPlaces(bash(`${script}; git status`), '/w', {});
    expect(found.places).toHaveLength(64);
    expect(found.atRunTime).toEqual([TOO_MANY_FOLDERS]);
  });
});
