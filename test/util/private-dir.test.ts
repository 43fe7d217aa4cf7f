import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asNobody, CANNOT_SWITCH_USER, NOBODY, removeMountPoint } from '../helpers/nobody.js';
import {
  ensurePrivateDir,
  makePrivateDir,
  privateDirProblem,
  stateRootCandidates,
} from '../../src/util/private-dir.js';
import { titled } from '../helpers/needs.js';

const base = mkdtempSync(join(tmpdir(), 'ue-private-dir-'));
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  removeMountPoint();
});
const uid = process.getuid!();

describe('ensurePrivateDir', () => {
  it('makes a 0700 folder of ours, and takes one that is already ours alone', () => {
    const path = join(base, 'fresh');
    expect(ensurePrivateDir(path)).toBe(path);
    expect(lstatSync(path).mode & 0o777).toBe(0o700);
    expect(ensurePrivateDir(path)).toBe(path);
  });

  it('refuses a link, a folder others may enter, and a file', () => {
    const target = join(base, 'target');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, join(base, 'link'));
    expect(() => ensurePrivateDir(join(base, 'link'))).toThrow(/refusing to use .*link: it is a symbolic link/);
    mkdirSync(join(base, 'open'));
    chmodSync(join(base, 'open'), 0o755);
    expect(() => ensurePrivateDir(join(base, 'open'))).toThrow(/others have access to it \(mode 755\)/);
  });

  it.skipIf(CANNOT_SWITCH_USER !== undefined)(titled("refuses another user's folder", CANNOT_SWITCH_USER), () => {
    const path = join(base, 'theirs');
    mkdirSync(path, { mode: 0o700 });
    execFileSync('chown', [`${NOBODY}:${NOBODY}`, path]);
    expect(() => ensurePrivateDir(path)).toThrow(/it belongs to uid 65534, not 0/);
  });
});

describe('privateDirProblem', () => {
  it('accepts a directory of ours with no access for others', () => {
    expect(privateDirProblem(lstatSync(makePrivateDir(base, 'x-')))).toBeUndefined();
  });
});

describe('stateRootCandidates', () => {
  it('runtime folder first, /run for root, then the cache folder and the temp dir, each named by uid', () => {
    const candidates = stateRootCandidates({ XDG_RUNTIME_DIR: '/run/user/7', XDG_CACHE_HOME: '' }, '/home/me');
    const name = `unified-exec-${uid}`;
    expect(candidates).toEqual([
      `/run/user/7/${name}`,
      ...(uid === 0 ? [`/run/${name}`] : []),
      `/home/me/.cache/${name}`,
      join(tmpdir(), name),
    ]);
  });

  it('ignores relative and empty places', () => {
    expect(stateRootCandidates({ XDG_RUNTIME_DIR: 'run', XDG_CACHE_HOME: 'cache' }, '')).toEqual([
      ...(uid === 0 ? [`/run/unified-exec-${uid}`] : []),
      join(tmpdir(), `unified-exec-${uid}`),
    ]);
  });
});

describe.skipIf(CANNOT_SWITCH_USER !== undefined)('stateRoot as another user', () => {
  it('passes over a folder of its name that someone else made first, and makes a private one', () => {
    const shared = mkdtempSync('/var/tmp/ue-shared-tmp-'); // a folder nobody can reach, as /tmp
    chmodSync(shared, 0o1777);
    mkdirSync(join(shared, `unified-exec-${NOBODY}`), { mode: 0o777 }); // root's, open to all: a squat
    const { command, args } = asNobody((at) => [
      process.execPath,
      '--input-type=module',
      '-e',
      `import('${at}/dist/util/private-dir.js').then((m) => console.log(m.stateRoot()))`,
    ]);
    const root = execFileSync(command, args, {
      env: { PATH: process.env.PATH, HOME: '/nonexistent', TMPDIR: shared, XDG_RUNTIME_DIR: shared },
    })
      .toString()
      .trim();
    expect(root.startsWith(`${shared}/unified-exec-${NOBODY}-`)).toBe(true);
    const stat = lstatSync(root);
    expect([stat.uid, stat.mode & 0o777]).toEqual([NOBODY, 0o700]);
    rmSync(shared, { recursive: true, force: true });
  });
});
