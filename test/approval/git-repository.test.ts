import { constants } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MAX_FOLDERS_WALKED,
  findRepository,
  gitfileTarget,
  nestedRepositories,
  newWalk,
  plantableFolder,
  type GitFacts,
} from '../../src/approval/git-repository.js';
import { repositoryWarnings } from '../../src/approval/git-warnings.js';

/**
 * A file system on plain data: each path a file (its text) or a folder ('/'); the folders above every path exist.
 * `links` maps a link's path to its target (absolute): realPath follows them.
 */
function factsOf(tree: Record<string, string>, links: Record<string, string> = {}): GitFacts {
  const exists = (path: string) =>
    path === '/' || path in tree || Object.keys(tree).some((p) => p.startsWith(`${path}/`));
  const realPath = (path: string): string | undefined => {
    for (const [link, target] of Object.entries(links)) {
      if (path === link || path.startsWith(`${link}/`)) return realPath(target + path.slice(link.length));
    }
    return exists(path) ? path : undefined;
  };
  const children = (dir: string) => {
    const names = new Map<string, 'dir' | 'link' | 'other'>();
    for (const path of [...Object.keys(tree), ...Object.keys(links)]) {
      if (!path.startsWith(`${dir}/`)) continue;
      const [name, ...deeper] = path.slice(dir.length + 1).split('/');
      const own = `${dir}/${name!}`;
      names.set(name!, own in links ? 'link' : deeper.length > 0 || tree[own] === '/' ? 'dir' : 'other');
    }
    return [...names].map(([name, kind]) => ({ name, kind }));
  };
  return {
    realPath,
    owner: (path) => (path in links ? { uid: 0, mode: constants.S_IFLNK | 0o777 } : undefined),
    uid: 0,
    list: (path) => {
      const real = realPath(path);
      return real === undefined ? [] : children(real === '/' ? '' : real);
    },
    kind: (path) => {
      const real = realPath(path);
      if (real === undefined) return undefined;
      return tree[real] !== undefined && tree[real] !== '/' ? 'file' : 'dir';
    },
    read: (path) => {
      const text = tree[realPath(path) ?? path];
      return text === '/' ? undefined : text;
    },
  };
}

/** The files that make `dir` a repository: HEAD, objects, refs, config. */
const repository = (dir: string): Record<string, string> => ({
  [`${dir}/HEAD`]: 'ref: refs/heads/main\n',
  [`${dir}/objects`]: '/',
  [`${dir}/refs`]: '/',
  [`${dir}/config`]: '[core]\n',
});

describe('findRepository', () => {
  it('walks up to the first folder with a .git folder that is a repository', () => {
    const facts = factsOf({ ...repository('/w/.git'), '/w/a/b/file': 'x' });
    expect(findRepository('/w/a/b', facts)).toEqual({ at: '/w/.git', gitDir: '/w/.git' });
    expect(findRepository('/elsewhere', facts)).toBeNull();
  });

  it('takes a folder that is a repository itself: HEAD with objects or refs, or with a commondir', () => {
    const facts = factsOf({
      ...repository('/tmp/bare'),
      '/tmp/refs-only/HEAD': 'ref: refs/heads/main\n',
      '/tmp/refs-only/refs': '/',
      '/tmp/linked/HEAD': 'ref: refs/heads/main\n',
      '/tmp/linked/commondir': '../bare\n',
    });
    expect(findRepository('/tmp/bare/sub', facts)).toEqual({ at: '/tmp/bare', gitDir: '/tmp/bare' });
    expect(findRepository('/tmp/refs-only', facts)?.gitDir).toBe('/tmp/refs-only');
    expect(findRepository('/tmp/linked', facts)).toEqual({
      at: '/tmp/linked',
      gitDir: '/tmp/linked',
      commonDir: '/tmp/bare',
    });
  });

  it('follows a .git file to the folder it names, relative to it or absolute, with that folder’s commondir', () => {
    const facts = factsOf({
      '/w/.git': 'gitdir: /tmp/main/.git/worktrees/w\n',
      '/tmp/main/.git/worktrees/w/HEAD': 'ref: refs/heads/w\n',
      '/tmp/main/.git/worktrees/w/commondir': '../..\n',
      '/v/.git': 'gitdir: ../tmp/real.git',
    });
    expect(findRepository('/w', facts)).toEqual({
      at: '/w/.git',
      gitDir: '/tmp/main/.git/worktrees/w',
      commonDir: '/tmp/main/.git',
    });
    expect(findRepository('/v/sub', facts)).toEqual({ at: '/v/.git', gitDir: '/tmp/real.git' });
  });

  it('walks past what is no repository: an empty .git folder, a HEAD folder, an empty commondir, a .git file without gitdir', () => {
    const facts = factsOf({
      ...repository('/w/.git'),
      '/w/a/.git': '/',
      '/w/a/HEAD': '/',
      '/w/a/objects': 'an empty file',
      '/w/a/b/HEAD': 'ref: refs/heads/main\n',
      '/w/a/b/commondir': '',
      '/w/a/b/c/.git': 'not a pointer',
    });
    expect(findRepository('/w/a/b/c', facts)?.gitDir).toBe('/w/.git');
  });
});

describe('findRepository, as git reads what it finds', () => {
  it('takes a HEAD that is a link into refs/, dangling or not (git’s validate_headref)', () => {
    const facts = factsOf(
      { ...repository('/w/.git'), '/tmp/x/.git/refs': '/', '/tmp/x/.git/config': '[core]\n', '/tmp/x/deep/f': '' },
      { '/tmp/x/.git/HEAD': 'refs/heads/main' },
    );
    expect(findRepository('/tmp/x/deep', facts)).toEqual({ at: '/tmp/x/.git', gitDir: '/tmp/x/.git' });
  });

  it('reads a .git file as git does: it starts with "gitdir: ", and the rest is the path, blanks kept', () => {
    expect(gitfileTarget('gitdir: ../real.git\r\n')).toBe('../real.git');
    expect(gitfileTarget('gitdir:  /usr\n')).toBe(' /usr');
    expect(gitfileTarget('gitdir: a b \n\n')).toBe('a b ');
    expect(gitfileTarget('gitdir: /tmp/r\0junk')).toBe('/tmp/r');
    expect(gitfileTarget('# x\ngitdir: /tmp/r\n')).toBeUndefined();
    expect(gitfileTarget(' gitdir: /tmp/r')).toBeUndefined();
    expect(gitfileTarget('gitdir:/tmp/r')).toBeUndefined();
    const facts = factsOf({ ...repository('/tmp/w/ /usr'), '/tmp/w/.git': 'gitdir:  /usr\n', ...repository('/usr') });
    expect(findRepository('/tmp/w', facts)?.gitDir).toBe('/tmp/w/ /usr');
  });

  it('walks up the folder a link leads to, not the path through the link', () => {
    const facts = factsOf(
      { ...repository('/w/.git'), ...repository('/tmp/x/.git'), '/tmp/x/deep/f': '' },
      {
        '/w/lnk': '/tmp/x/deep',
      },
    );
    expect(findRepository('/w/lnk', facts)?.gitDir).toBe('/tmp/x/.git');
    expect(findRepository('/w/lnk/missing', facts)?.gitDir).toBe('/tmp/x/.git');
  });
});

describe('nestedRepositories', () => {
  it('finds each .git beneath a work tree (a submodule’s file, a folder, one through a link), and not the top’s', () => {
    const facts = factsOf(
      {
        ...repository('/w/.git'),
        '/w/sub/.git': 'gitdir: ../evil.git\n',
        ...repository('/w/evil.git'),
        ...repository('/w/a/b/nested/.git'),
        ...repository('/tmp/t/.git'),
        '/w/a/file': '',
      },
      { '/w/link': '/tmp/t' },
    );
    const found = nestedRepositories('/w', facts, newWalk());
    expect(found.finished).toBe(true);
    expect(found.repositories.map((r) => r.at).sort()).toEqual(['/w/a/b/nested/.git', '/w/link/.git', '/w/sub/.git']);
    expect(found.repositories.find((r) => r.at === '/w/sub/.git')?.gitDir).toBe('/w/evil.git');
  });

  it('stops at its budget, and says it did not finish', () => {
    const facts = factsOf({ ...repository('/w/.git'), '/w/a/b/c/d/.git': 'gitdir: /tmp/r\n' });
    expect(nestedRepositories('/w', facts, { found: new Map(), budget: 3 })).toEqual({
      repositories: [],
      finished: false,
    });
  });
});

describe('findRepository, in bounds', () => {
  it('walks from the part of a folder’s path that exists, and each folder once in one form', () => {
    const facts = factsOf({ ...repository('/tmp/x'), '/tmp/x/a/b/file': '' });
    const walk = { found: new Map(), budget: 100 };
    expect(findRepository('/tmp/x/a/b/missing/deeper', facts, walk)?.gitDir).toBe('/tmp/x');
    const spent = 100 - walk.budget;
    expect(findRepository('/tmp/x/a/b', facts, walk)?.gitDir).toBe('/tmp/x');
    expect(100 - walk.budget).toBe(spent + 1); // /tmp, above the repository, was never walked
  });

  it('gives up past its budget, and the form says it did not finish', () => {
    const deep = `/tmp${'/d'.repeat(MAX_FOLDERS_WALKED)}`;
    const facts = factsOf({ ...repository('/tmp/x'), [`${deep}/file`]: '' });
    expect(findRepository('/tmp/x/a', facts, { found: new Map(), budget: 2 })).toBeUndefined();
    expect(repositoryWarnings(['git', '-C', deep, 'status'], '/tmp/x', {}, ['/tmp'], facts)).toEqual([
      'Warning: git run here reads the repository at /tmp/x, which lies in /tmp: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).',
      `Warning: git may read a repository above ${deep}, which this form did not finish looking for (more than ${MAX_FOLDERS_WALKED} folders): commands in the sandbox may have written it, with programs for git to run (core.fsmonitor, hooks).`,
    ]);
  });
});

describe('plantableFolder', () => {
  const roots = ['/w', '/tmp'];

  it('spares the .git of a writable root, and of a folder between a root and a root inside it', () => {
    const facts = factsOf({ ...repository('/w/.git'), ...repository('/tmp/a/.git'), '/tmp/a/ws/x': '' });
    expect(plantableFolder({ at: '/w/.git', gitDir: '/w/.git' }, roots, facts)).toBeUndefined();
    expect(plantableFolder({ at: '/w/.git/modules/m', gitDir: '/w/.git/modules/m' }, roots, facts)).toBeUndefined();
    expect(plantableFolder({ at: '/tmp/a/.git', gitDir: '/tmp/a/.git' }, roots, facts)).toEqual({
      folder: '/tmp/a/.git',
      root: '/tmp',
    });
    expect(
      plantableFolder({ at: '/tmp/a/.git', gitDir: '/tmp/a/.git' }, [...roots, '/tmp/a/ws'], facts),
    ).toBeUndefined();
  });

  it('names a repository elsewhere in a writable root, the root itself as one, or a root’s .git that is a link', () => {
    const facts = factsOf(
      { ...repository('/w/sub/.git'), ...repository('/elsewhere/.git') },
      { '/w/.git': '/elsewhere/.git' },
    );
    expect(plantableFolder({ at: '/w/sub/.git', gitDir: '/w/sub/.git' }, roots, facts)).toEqual({
      folder: '/w/sub/.git',
      root: '/w',
    });
    expect(plantableFolder({ at: '/tmp', gitDir: '/tmp' }, roots, facts)).toEqual({ folder: '/tmp', root: '/tmp' });
    expect(plantableFolder({ at: '/w/.git', gitDir: '/w/.git' }, roots, facts)).toEqual({
      folder: '/w/.git',
      root: '/w',
    });
  });

  it('judges the common folder too, and nothing outside the writable roots', () => {
    const facts = factsOf({ ...repository('/tmp/main.git'), '/home/me/wt/HEAD': 'x' });
    const linked = { at: '/home/me/wt', gitDir: '/home/me/wt', commonDir: '/tmp/main.git' };
    expect(plantableFolder(linked, roots, facts)).toEqual({ folder: '/tmp/main.git', root: '/tmp' });
    expect(plantableFolder({ at: '/home/me/wt', gitDir: '/home/me/wt' }, roots, facts)).toBeUndefined();
  });
});

describe('repositoryWarnings', () => {
  const roots = ['/w', '/tmp'];
  const bash = (script: string) => ['/usr/bin/bash', '-lc', script];
  const facts = factsOf({
    ...repository('/w/.git'),
    ...repository('/tmp/x'),
    ...repository('/tmp/y/.git'),
    '/home/me/p/.git': 'gitdir: /tmp/p.git\n',
    ...repository('/tmp/p.git'),
  });
  const warning = (place: string, repo: string) =>
    `Warning: git ${place} reads the repository at ${repo}, which lies in /tmp: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).`;

  it('warns for none in the workspace with its own .git', () => {
    expect(repositoryWarnings(bash('git status && ls'), '/w/src', {}, roots, facts)).toEqual([]);
  });

  it('warns once for each repository the sandbox could have written, where the command runs or points git', () => {
    expect(repositoryWarnings(['git', 'status'], '/tmp/x', {}, roots, facts)).toEqual([warning('run here', '/tmp/x')]);
    expect(
      repositoryWarnings(bash('cd /tmp/x/sub && git -C /tmp/y status && git -C /tmp/x log'), '/w', {}, roots, facts),
    ).toEqual([warning('in /tmp/x/sub (cd /tmp/x/sub)', '/tmp/x'), warning('in /tmp/y (-C /tmp/y)', '/tmp/y/.git')]);
    expect(repositoryWarnings(['git', 'status'], '/w', { GIT_DIR: '/tmp/x' }, roots, facts)).toEqual([
      warning('in /tmp/x (GIT_DIR=/tmp/x in its environment)', '/tmp/x'),
    ]);
    expect(repositoryWarnings(['git', 'status'], '/home/me/p', {}, roots, facts)).toEqual([
      warning('run here', '/tmp/p.git (which /home/me/p/.git points to)'),
    ]);
  });

  it('warns for a folder git is pointed at only as the command runs, when it names git', () => {
    expect(repositoryWarnings(bash('cd "$d" && git status'), '/w', {}, roots, facts)).toEqual([
      'Warning: git may read a repository or config in a folder the command picks only as it runs (cd $d): commands in the sandbox may have written it, with programs for git to run (core.fsmonitor, hooks).',
    ]);
    expect(repositoryWarnings(bash('cd "$d" && make'), '/w', {}, roots, facts)).toEqual([]);
  });

  it('warns for a submodule git may visit whose repository the sandbox could have written, when git is named', () => {
    const withSub = factsOf({
      ...repository('/w/.git'),
      ...repository('/w/.git/modules/kept'),
      '/w/kept/.git': 'gitdir: ../.git/modules/kept\n',
      '/w/sub/.git': 'gitdir: ../evil.git\n',
      ...repository('/w/evil.git'),
    });
    expect(repositoryWarnings(['git', 'status'], '/w/src', {}, roots, withSub)).toEqual([
      'Warning: git run here may visit, beneath its work tree /w, the repository at /w/evil.git (which /w/sub/.git points to), which lies in /w: commands in the sandbox can write its config and hooks, so the agent may have set programs for git to run (core.fsmonitor, hooks).',
    ]);
    expect(repositoryWarnings(['ls'], '/w/src', {}, roots, withSub)).toEqual([]);
  });

  it('warns for config git reads from a writable root, and for config the command gives git', () => {
    const configWarning = (path: string, named: string, root: string) =>
      `Warning: git reads config or runs programs from ${path} (${named}), which lies in ${root}: commands in the sandbox can write it, so the agent may have set programs for git to run (core.fsmonitor, hooks).`;
    expect(repositoryWarnings(['git', 'status'], '/w', { HOME: '/home/me' }, roots, facts)).toEqual([]);
    expect(repositoryWarnings(bash('HOME=/w git status'), '/w', { HOME: '/home/me' }, roots, facts)).toEqual([
      configWarning('/w/.gitconfig', 'HOME=/w', '/w'),
      configWarning('/w/.config/git/config', 'HOME=/w', '/w'),
    ]);
    expect(repositoryWarnings(bash('XDG_CONFIG_HOME=. git status'), '/w', {}, roots, facts)).toEqual([
      configWarning('/w/git/config', 'XDG_CONFIG_HOME=.', '/w'),
    ]);
    expect(repositoryWarnings(['git', 'log'], '/w', { GIT_CONFIG_GLOBAL: '/tmp/c' }, roots, facts)).toEqual([
      configWarning('/tmp/c', 'GIT_CONFIG_GLOBAL=/tmp/c in its environment', '/tmp'),
    ]);
    expect(repositoryWarnings(['git', '-c', 'core.pager=less', 'log'], '/w', {}, roots, facts)).toEqual([
      'Warning: git is given config by the command (-c core.pager=less): config can make git run programs (core.fsmonitor, core.pager, aliases, include.path), and the agent chose it.',
    ]);
  });
});
