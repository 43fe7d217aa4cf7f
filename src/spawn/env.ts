/** Environment building (a pure function of the policy and the parent environment), and finding a program on it. */

import { resolve } from 'node:path';
import { findExecutable } from '../util/executable.js';

/** Set on every session so programs behave for a reader that is a model, not a person (compat part first). */
export const SESSION_ENV: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  TERM: 'dumb',
  LANG: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  COLORTERM: '',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  // Codex sets it in every session, and programs take it to mean "run by Codex": no prompts, plain output, and the
  // exec_command/write_stdin contract, which is what these sessions keep. A session without it would behave as for
  // a person wherever a program or a repository's scripts look for it, unlike under Codex.
  CODEX_CI: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  DEBIAN_FRONTEND: 'noninteractive',
  PIP_NO_INPUT: '1',
};

/** Variables that tell git where its repository or work tree is. */
export const GIT_REPOSITORY_VARIABLES: readonly string[] = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR'];

/**
 * Variables that tell git where to read config or find programs, or hand it config: with HOME (`~/.gitconfig`), what
 * the sandbox could have written that git would run (approval/git-places.ts).
 */
export const GIT_CONFIG_VARIABLES: readonly string[] = [
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'XDG_CONFIG_HOME',
];

/**
 * Variables that tell git where its repository, work tree, config or programs are: the approval form looks where they
 * point for what the sandbox could have written (approval/git-places.ts), so a plan leaving the sandbox carries them
 * (and HOME, for `~` and `~/.gitconfig`).
 */
export const GIT_LOCATION_VARIABLES: readonly string[] = [...GIT_REPOSITORY_VARIABLES, ...GIT_CONFIG_VARIABLES];

/** Variables a program needs to find things and to know who runs it; what `inherit: 'core'` keeps. */
export const CORE_ENV_NAMES: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'USER',
  'USERNAME',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TZ',
  'LANG',
  'LC_ALL',
];

/**
 * Names that hold or unlock credentials: KEY, SECRET, TOKEN, PASS (PASSWORD, PASSWD, PASSPHRASE), CREDENTIAL, AUTH,
 * DSN, WEBHOOK anywhere; PWD or _PAT at the end. AUTH does not count where it starts AUTHOR or AUTHORITY (GIT_AUTHOR_NAME;
 * XAUTHORITY, a path the session reads anyway when unset), but AUTHORIZATION and AUTHORISATION do. SSH_AUTH_SOCK
 * counts: it signs as the user with every key the agent holds, and clients have no default place to look for it.
 */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASS|CREDENTIAL|AUTH(?!OR(?!I[SZ]))|DSN|WEBHOOK|PWD$|_PAT$/i;
/** Caught by `PWD$` but the working directory, which every shell sets and many programs read. */
const NOT_SECRET_NAMES: ReadonlySet<string> = new Set(['PWD', 'OLDPWD']);
/** A URL with user-info (`scheme://user:password@`, `https://token@`) anywhere in the value; `/` ends the authority. */
const URL_WITH_USERINFO = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i;

/** Whether a variable is withheld from sessions unless `keepSecrets` is set: by its name or by a URL in its value. */
export function isSecret(name: string, value: string): boolean {
  if (SECRET_NAME.test(name) && !NOT_SECRET_NAMES.has(name)) return true;
  return URL_WITH_USERINFO.test(value);
}

export interface EnvPolicy {
  /** Which parent variables to start from. Default `all`. */
  inherit?: 'all' | 'core' | 'none';
  /** Keep the variables `isSecret` picks out (credential-like names, URLs with user-info). Default false. */
  keepSecrets?: boolean;
  /** Glob patterns (`*`, `?`; case-insensitive) of names to drop. */
  exclude?: readonly string[];
  /** When given, only names matching one of these globs survive (applied after `exclude`). */
  includeOnly?: readonly string[];
  /** Set last, over everything else, including the session variables. */
  set?: Readonly<Record<string, string>>;
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

export interface BuildEnvOptions {
  /**
   * Add SESSION_ENV (default true). The exec-server passes false: a Codex client sends those variables itself in
   * `env`, and a policy's result must be the server's environment filtered, nothing more.
   */
  sessionEnv?: boolean;
}

/** Whether the policy lets a variable through (secrets, `exclude`, `includeOnly`); `inherit` is not about names. */
export function policyKeeps(policy: EnvPolicy = {}): (name: string, value: string) => boolean {
  const exclude = (policy.exclude ?? []).map(globToRegExp);
  const includeOnly = policy.includeOnly?.map(globToRegExp);
  return (name, value) =>
    (policy.keepSecrets || !isSecret(name, value)) &&
    !exclude.some((re) => re.test(name)) &&
    (!includeOnly || includeOnly.some((re) => re.test(name)));
}

/** parent → inherited subset → minus secrets/excluded → includeOnly → + SESSION_ENV (unless told not to) → + set. */
export function buildEnv(
  policy: EnvPolicy = {},
  parent: Readonly<Record<string, string | undefined>> = process.env,
  options: BuildEnvOptions = {},
): Record<string, string> {
  const inherit = policy.inherit ?? 'all';
  const exclude = (policy.exclude ?? []).map(globToRegExp);
  const includeOnly = policy.includeOnly?.map(globToRegExp);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || inherit === 'none') continue;
    if (inherit === 'core' && !CORE_ENV_NAMES.includes(name)) continue;
    if (!policy.keepSecrets && isSecret(name, value)) continue;
    if (exclude.some((re) => re.test(name))) continue;
    if (includeOnly && !includeOnly.some((re) => re.test(name))) continue;
    env[name] = value;
  }
  return { ...env, ...(options.sessionEnv === false ? {} : SESSION_ENV), ...policy.set };
}

/** What execvp searches when the environment has no PATH (glibc's confstr(_CS_PATH)). */
export const DEFAULT_EXEC_PATH = '/bin:/usr/bin';

/**
 * The file that argv[0] names for a program started in `cwd` with `env`, as an absolute path: with a slash, that path
 * (relative to `cwd`); else searched on env.PATH (execvp's default when unset), not on this process's PATH.
 * Undefined when there is none.
 */
export function findProgram(file: string, env: Readonly<Record<string, string>>, cwd: string): string | undefined {
  return file.includes('/')
    ? findExecutable(resolve(cwd, file), undefined)
    : findExecutable(file, env.PATH ?? DEFAULT_EXEC_PATH);
}

/**
 * findProgram, throwing an ENOENT error when there is none, so a missing program fails the spawn instead of giving a
 * child that prints "execvp failed".
 */
export function resolveProgram(file: string, env: Readonly<Record<string, string>>, cwd: string): string {
  const found = findProgram(file, env, cwd);
  if (found !== undefined) return found;
  throw Object.assign(new Error(`could not start ${file}: no such executable`), { code: 'ENOENT' });
}
