/**
 * The file-heavy workload (figure 18b): a tar of many small files, made once per worker outside the clock, unpacked
 * into the top of a fresh workspace and into `proj/`, a folder with a git repository that was there before the
 * session (as a checkout is), whose new files are then added and committed. On Landlock the two halves take the two
 * paths of docs/sandbox.md: a file at the workspace's top is made by the supervisor, one in a folder that existed is
 * made by the kernel once the supervisor lets the call go on.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trackStop } from './cleanup.mjs';

// No `git gc --auto` after the commit (10 000 loose objects start one): it would go on in the background
// unsandboxed, and be ended with the command in a sandbox, so the rows would not do the same work.
const IDENTITY = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'gc.auto=0'];

/**
 * A fresh folder under /var/tmp, removed at cleanup by `rm -rf`: Node's rmSync took 65–70 s for the 30 000 entries
 * a run leaves (rm -rf 3 s), past the bench's worker timeout.
 */
function folder(prefix) {
  const dir = mkdtempSync(`/var/tmp/${prefix}`);
  trackStop(() => execFileSync('rm', ['-rf', '--one-file-system', dir]));
  return dir;
}

const nameOf = (i) => `f${String(i).padStart(5, '0')}.txt`;

/** A tar of `files` files of a line each, every one different (git stores each); its path. */
function makeTar(files) {
  const dir = folder('ue-bench-tar-');
  const src = join(dir, 'files');
  mkdirSync(src);
  const names = Array.from({ length: files }, (_, i) => nameOf(i));
  for (const name of names) writeFileSync(join(src, name), `${name}: a small file of the file-heavy workload\n`);
  // Names listed, not `.`: unpacking `./` would set the times of the folder it lands in (the workspace's top).
  writeFileSync(join(dir, 'names'), `${names.join('\n')}\n`);
  execFileSync('tar', ['-cf', join(dir, 'files.tar'), '-C', src, '-T', join(dir, 'names')]);
  return join(dir, 'files.tar');
}

/**
 * A fresh workspace with `proj/` (a git repository with one commit) and the command that fills and commits it; the
 * tar is made on the first call of a worker and reused.
 */
let tar;
export function fileHeavySetup(files) {
  tar ??= makeTar(files);
  const workspace = folder('ue-bench-workspace-');
  const proj = join(workspace, 'proj');
  mkdirSync(proj);
  const git = (...args) => execFileSync('git', ['-C', proj, ...args], { stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(proj, 'README'), 'a project\n');
  git('add', 'README');
  git(...IDENTITY, 'commit', '-q', '-m', 'start');
  const command = [
    `tar -xf ${tar}`,
    `tar -xf ${tar} -C proj`,
    'cd proj',
    'git add -A',
    `git ${IDENTITY.join(' ')} commit -q -m files`,
  ].join(' && ');
  return { workspace, command };
}

/** Whether the run did it all: `files` files at the top and in proj/, and proj's last commit holds them. */
export function fileHeavyDone(workspace, files) {
  const at = (dir) => readdirSync(dir).filter((n) => /^f\d{5}\.txt$/.test(n)).length;
  const committed = execFileSync('git', ['-C', join(workspace, 'proj'), 'ls-files'], { encoding: 'utf8' })
    .split('\n')
    .filter((n) => n.endsWith('.txt')).length;
  return at(workspace) === files && at(join(workspace, 'proj')) === files && committed === files;
}
