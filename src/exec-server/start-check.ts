// Whether a `process/start` can run its program in its working folder, decided before spawning and answered in the
// real server's words. Its two ways of starting differ, and so do their answers (measured on 0.171.0):
// - pipes start through execvp: a program named with a slash is that file; a bare name is looked up on the child's
//   PATH (glibc's default when it has none, an empty entry meaning the working folder), and a candidate that exists
//   but cannot run (not executable, a folder) makes the failure `Permission denied` rather than `No such file`;
// - terminals start through portable-pty, which looks the program up itself, in the child's PATH only, with each
//   entry taken relative to the working folder, explains a miss in a message of its own (`Unable to spawn X
//   because: ...`, kind spawnFailed), and starts in the child's HOME when the working folder is not a folder.
import { accessSync, constants, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_EXEC_PATH } from '../spawn/env.js';
import { INTERNAL_ERROR } from './protocol.js';
import { RpcError, spawnError } from './rpc-error.js';

type Found = 'runnable' | 'unrunnable' | 'missing';

/** What `path` is to exec: a file it may run, something there it may not (a folder, no execute right), or nothing. */
function examine(path: string): Found {
  try {
    if (!statSync(path).isDirectory()) {
      accessSync(path, constants.X_OK);
      return 'runnable';
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EACCES' ? 'unrunnable' : exists(path) ? 'unrunnable' : 'missing';
  }
  return 'unrunnable';
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const systemError = (code: string) => Object.assign(new Error(code), { code });

/** `folder` if it is one, else the system error a chdir there meets (ENOENT, ENOTDIR), as the answer to send. */
function checkFolder(folder: string): void {
  let stat;
  try {
    stat = statSync(folder);
  } catch (error) {
    throw spawnError(error);
  }
  if (!stat.isDirectory()) throw spawnError(systemError('ENOTDIR'));
}

/** The execvp outcome for `found`: nothing when it runs, else EACCES or ENOENT. */
function execFailure(found: Found): void {
  if (found !== 'runnable') throw spawnError(systemError(found === 'unrunnable' ? 'EACCES' : 'ENOENT'));
}

function checkPipes(file: string, env: Readonly<Record<string, string>>, cwd: string): void {
  checkFolder(cwd);
  if (file.includes('/')) return execFailure(examine(resolve(cwd, file)));
  let denied = false;
  for (const dir of (env.PATH ?? DEFAULT_EXEC_PATH).split(':')) {
    const found = examine(resolve(cwd, dir, file));
    if (found === 'runnable') return;
    denied ||= found === 'unrunnable';
  }
  execFailure(denied ? 'unrunnable' : 'missing');
}

/** Rust's Path::join, unnormalised, as portable-pty prints it: `/a` + `./b` is `/a/./b`, `/a` + `` is `/a/`. */
export function rustJoin(base: string, part: string): string {
  if (part.startsWith('/')) return part;
  return base.endsWith('/') ? `${base}${part}` : `${base}/${part}`;
}

/** A string as Rust's `{:?}` prints it: quoted, with quotes, backslashes and control characters escaped. */
export function rustDebug(text: string): string {
  const escaped = [...text].map((char) => {
    const named: Record<string, string> = {
      '"': '\\"',
      '\\': '\\\\',
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\0': '\\0',
    };
    if (named[char] !== undefined) return named[char];
    return /\p{Cc}/u.test(char) ? `\\u{${char.codePointAt(0)!.toString(16)}}` : char;
  });
  return `"${escaped.join('')}"`;
}

const ptyFailure = (message: string) => new RpcError(INTERNAL_ERROR, message, { kind: 'spawnFailed' });

/** Where a terminal starts, after the program's lookup portable-pty makes there. */
function checkTerminal(file: string, env: Readonly<Record<string, string>>, cwd: string): string {
  const folder = isFolder(cwd) ? cwd : (env.HOME ?? userInfo().homedir);
  if (file.startsWith('/')) {
    execFailure(examine(file));
  } else if (/^\.\.?(\/|$)/.test(file)) {
    const path = rustJoin(folder, file);
    const found = isFolder(path) ? 'a directory' : examine(path);
    if (found === 'a directory') throw ptyFailure(`Unable to spawn ${path} because it is a directory`);
    if (found === 'unrunnable') throw ptyFailure(`Unable to spawn ${path} because it is not executable`);
    if (found === 'missing') throw ptyFailure(`Unable to spawn ${path} because it does not exist`);
  } else {
    const reasons: string[] = [];
    if (env.PATH === undefined) reasons.push('Unable to resolve the PATH');
    else {
      for (const dir of env.PATH.split(':')) {
        const candidate = rustJoin(rustJoin(folder, dir), file);
        if (isFolder(candidate)) reasons.push(`${candidate} exists but is a directory`);
        else if (examine(candidate) === 'runnable') return checkedFolder(folder);
        else if (exists(candidate)) reasons.push(`${candidate} exists but is not executable`);
      }
      reasons.push(`No viable candidates found in PATH ${rustDebug(env.PATH)}`);
    }
    throw ptyFailure(`Unable to spawn ${file} because:\n${reasons.join('.\n')}`);
  }
  return checkedFolder(folder);
}

function checkedFolder(folder: string): string {
  checkFolder(folder);
  return folder;
}

/**
 * The folder a `process/start` of `file` (its argv[0]) runs in, with `env` as the child's environment; or throws the
 * RpcError the real server answers when it cannot start (see the top of this file).
 */
export function checkStart(file: string, env: Readonly<Record<string, string>>, cwd: string, tty: boolean): string {
  if (tty) return checkTerminal(file, env, cwd);
  checkPipes(file, env, cwd);
  return cwd;
}
