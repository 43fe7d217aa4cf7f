import { describe, expect, it } from 'vitest';
import {
  cleanPath,
  isShellName,
  parseEtcShells,
  systemShellProblem,
  writableRootOf,
  type FileFacts,
} from '../../src/spawn/leave-sandbox.js';

/**
 * A file system as plain data: each existing path with its owner and mode, and links by where they point (a link's
 * real path is its target's).
 */
function fakeFs(entries: Record<string, { uid?: number; mode?: number; link?: string }>, uid = 1000): FileFacts {
  const realPath = (path: string): string | undefined => {
    const parts = path.split('/').filter(Boolean);
    let at = '';
    for (const part of parts) {
      at = `${at}/${part}`;
      const link = entries[at]?.link;
      if (link !== undefined) at = realPath(link) ?? link;
      else if (!(at in entries)) return undefined;
    }
    return at === '' ? '/' : at;
  };
  return {
    realPath,
    owner: (path) => {
      const entry = entries[path];
      return entry === undefined ? undefined : { uid: entry.uid ?? 0, mode: entry.mode ?? 0o755 };
    },
    uid,
  };
}

const ROOTS = ['/home/me/ws', '/tmp'];
const system = {
  '/': {},
  '/usr': {},
  '/usr/bin': {},
  '/usr/bin/bash': {},
  '/usr/bin/dash': {},
  '/usr/bin/git': {},
  '/usr/local': {},
  '/usr/local/bin': {},
  '/bin': { link: '/usr/bin', mode: 0o777 },
  '/home': {},
  '/home/me': { uid: 1000 },
  '/home/me/.local': { uid: 1000 },
  '/home/me/.local/bin': { uid: 1000 },
  '/home/me/ws': { uid: 1000 },
  '/home/me/ws/node_modules': { uid: 1000 },
  '/home/me/ws/node_modules/.bin': { uid: 1000 },
  '/tmp': { mode: 0o1777 },
  '/tmp/x': { uid: 1000 },
  '/tmp/x/bash': { uid: 1000 },
  '/opt': {},
  '/opt/tools': { link: '/tmp/x' },
  '/srv': { uid: 1001 },
  '/srv/bash': { uid: 1001 },
  '/shared': { mode: 0o777 },
  '/shared/bash': {},
};

describe('writableRootOf', () => {
  const fs = fakeFs(system);

  it('finds the root a path lies in, by name or through a link above it', () => {
    expect(writableRootOf('/home/me/ws/node_modules/.bin', ROOTS, fs)).toBe('/home/me/ws');
    expect(writableRootOf('/tmp', ROOTS, fs)).toBe('/tmp');
    expect(writableRootOf('/opt/tools/bash', ROOTS, fs)).toBe('/tmp');
    expect(writableRootOf('/tmp/not/made/yet', ROOTS, fs)).toBe('/tmp');
  });

  it('answers undefined for the system folders and a sibling whose name only begins like a root', () => {
    expect(writableRootOf('/usr/bin/git', ROOTS, fs)).toBeUndefined();
    expect(writableRootOf('/bin/bash', ROOTS, fs)).toBeUndefined();
    expect(writableRootOf('/tmpfoo/bash', ROOTS, fs)).toBeUndefined();
  });
});

describe('cleanPath', () => {
  const fs = fakeFs(system);

  it('drops writable roots, links into them, relative, empty and missing entries, and keeps the order of the rest', () => {
    const path = [
      '/home/me/ws/node_modules/.bin',
      '',
      '.',
      'bin',
      '/opt/tools',
      '/nonexistent',
      '/home/me/.local/bin',
      '/usr/local/bin',
      '/tmp/x',
      '/usr/bin',
      '/bin',
    ].join(':');
    expect(cleanPath(path, ROOTS, fs)).toBe('/home/me/.local/bin:/usr/local/bin:/usr/bin:/bin');
  });

  it('gives an empty PATH when nothing is left', () => {
    expect(cleanPath('/tmp/x:.', ROOTS, fs)).toBe('');
    expect(cleanPath(undefined, ROOTS, fs)).toBe('');
  });
});

describe('systemShellProblem', () => {
  const fs = fakeFs(system);
  const listed = ['/bin/sh', '/bin/bash', '/usr/bin/bash', '/bin/dash', '/srv/bash', '/shared/bash'];

  it('accepts an installed shell /etc/shells lists, by the path found or through a link to it', () => {
    expect(systemShellProblem('/usr/bin/bash', listed, ROOTS, fs)).toBeUndefined();
    expect(systemShellProblem('/bin/bash', listed, ROOTS, fs)).toBeUndefined();
    expect(systemShellProblem('/usr/bin/dash', listed, ROOTS, fs)).toBeUndefined();
  });

  it('refuses a shell in a writable root, also one /etc/shells or the configuration names', () => {
    expect(systemShellProblem('/tmp/x/bash', [...listed, '/tmp/x/bash'], ROOTS, fs)).toBe(
      'it lies in /tmp, which commands in the sandbox can write',
    );
    expect(systemShellProblem('/opt/tools/bash', listed, ROOTS, fs)).toBe(
      'it lies in /tmp, which commands in the sandbox can write',
    );
  });

  it('refuses a program /etc/shells does not list', () => {
    expect(systemShellProblem('/usr/bin/git', listed, ROOTS, fs)).toBe(
      'it is not an installed shell: /etc/shells does not list it',
    );
  });

  it("refuses a shell another user may change: another user's, or in a folder others may write", () => {
    expect(systemShellProblem('/srv/bash', listed, ROOTS, fs)).toBe('/srv belongs to uid 1001');
    expect(systemShellProblem('/shared/bash', listed, ROOTS, fs)).toBe('others may write /shared (mode 777)');
  });

  it('accepts the server user’s own shell outside the writable roots', () => {
    const mine = fakeFs({ ...system, '/home/me/.local/bin/zsh': { uid: 1000 } });
    expect(systemShellProblem('/home/me/.local/bin/zsh', ['/home/me/.local/bin/zsh'], ROOTS, mine)).toBeUndefined();
  });

  it('says so when the shell does not exist', () => {
    expect(systemShellProblem('/usr/bin/fish', listed, ROOTS, fs)).toBe('it does not exist');
  });
});

describe('parseEtcShells and isShellName', () => {
  it('reads the absolute paths of /etc/shells, without comments and blank lines', () => {
    expect(parseEtcShells('# /etc/shells: valid login shells\n/bin/sh\n\n  /usr/bin/bash \nnot-a-path\n')).toEqual([
      '/bin/sh',
      '/usr/bin/bash',
    ]);
  });

  it('knows a shell by the last part of its path', () => {
    expect(isShellName('/tmp/x/bash')).toBe(true);
    expect(isShellName('zsh')).toBe(true);
    expect(isShellName('/usr/bin/git')).toBe(false);
    expect(isShellName('/usr/bin/bash-wrapper')).toBe(false);
  });
});
