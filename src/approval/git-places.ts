/**
 * Where a command may make git look for a repository: the folders it names to git, for the approval form to check.
 * Pure: an argv, its directory and its environment in, folders out; nothing is looked up.
 *
 * git reads a repository's config (core.fsmonitor, core.pager, hooks …) from where it finds one: the directory it
 * starts in and the folders above it (discovery), a `-C` folder, or the folder `--git-dir`/`GIT_DIR` names. A
 * command reaches such folders by its directory, `cd`/`pushd`, `env -C`, git's `-C`, `--git-dir`, `--work-tree`, and
 * the variables GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR (set in the script, with `export` or `env`, or in the
 * call's environment). The script is read loosely, as the danger check reads one it cannot parse (quotes dropped,
 * cut at `; & | ( )`, backticks and newlines), so a word that is only data may count; one it can see is not
 * missed. A relative folder is taken from every folder the script may be in by then.
 */

import { isAbsolute, resolve } from 'node:path';
import { GIT_LOCATION_VARIABLES } from '../spawn/env.js';
import { tooLongToRead } from './command-safety.js';
import { words } from './shell-script.js';

/** A folder git may start from, and how the command names it (undefined: it is the command's directory). */
export interface GitPlace {
  folder: string;
  named?: string;
}

export interface GitPlaces {
  /** Absolute, normalised, each once, the command's directory first. */
  places: GitPlace[];
  /** Words naming a folder only running the command tells (`cd "$d"`, `GIT_DIR=$(…)`), as written, each once. */
  atRunTime: string[];
  /** Whether a word of the command is a program named git (`git`, `/usr/bin/git`, `git-upload-pack`). */
  namesGit: boolean;
}

/** `GIT_DIR=…` and the like: an assignment of one of GIT_LOCATION_VARIABLES. */
const GIT_PLACE_ASSIGNMENT = new RegExp(`^(${GIT_LOCATION_VARIABLES.join('|')})=(.*)$`);
/** git's global options that name a folder: the `-C` folder, the repository, the work tree. */
const GIT_FOLDER_OPTIONS = words('-C --git-dir --work-tree');
/** git's other global options that take a separate value. */
const GIT_VALUE_OPTIONS = words('-c --config-env --namespace --super-prefix --exec-path --list-cmds');
const CHANGE_DIRECTORY = words('cd pushd');
/** How many folders a script is taken to be in at once: each relative `cd` doubles them (it may have failed). */
const MAX_FOLDERS = 32;
/** How many folders are looked at in all: each costs the form a few file look-ups per folder above it. */
const MAX_PLACES = 64;
/**
 * How many folders are worked out in all (one for each folder the script may be in, at each `cd` or `-C`): `cd .`
 * 20 000 times from 32 folders cost seconds of the server's loop. Past it, the rest count as picked at run time.
 */
const MAX_FOLDER_STEPS = 4096;
/** How many words atRunTime keeps: it is shown to the person. */
const MAX_AT_RUN_TIME = 8;
/** What atRunTime says when a command names more folders than are looked at. */
export const TOO_MANY_FOLDERS = `more than ${MAX_PLACES} folders`;
/** What atRunTime says of a command longer than the approval reads (MAX_READ_BYTES): none of its folders is known. */
export const TOO_LONG_TO_READ = 'a command too long to read';
/** `~`, `$HOME` or `${HOME}` at the start of a folder: the environment's HOME. */
const HOME_PREFIX = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/;
/** A word the shell would change before use: expansions, substitutions, globs. */
const EXPANDS = /[$`*?[\]{}\\]/;

export function gitPlaces(argv: readonly string[], cwd: string, env: Readonly<Record<string, string>>): GitPlaces {
  const here = resolve(cwd);
  const found: GitPlaces = { places: [{ folder: here }], atRunTime: [], namesGit: false };
  let heres = [here]; // the folders the script may be in at this point
  const seen = new Set([here]);
  let steps = 0;
  const note = (named: string): void => {
    if (found.atRunTime.length < MAX_AT_RUN_TIME && !found.atRunTime.includes(named)) found.atRunTime.push(named);
  };
  const add = (folders: readonly string[], named: string): void => {
    for (const folder of folders) {
      if (seen.has(folder)) continue;
      if (seen.size >= MAX_PLACES) return note(TOO_MANY_FOLDERS);
      seen.add(folder);
      found.places.push({ folder, named });
    }
  };
  /** The folders `word` names from each of `bases`; none when it expands at run time (then noted). */
  const folderOf = (word: string, bases: readonly string[], named: string): string[] => {
    const path = env.HOME === undefined ? word : word.replace(HOME_PREFIX, () => env.HOME!);
    if (path === '' || EXPANDS.test(path) || path.startsWith('~')) {
      note(named);
      return [];
    }
    steps += isAbsolute(path) ? 1 : bases.length;
    if (steps > MAX_FOLDER_STEPS) {
      note(TOO_MANY_FOLDERS);
      return [];
    }
    return isAbsolute(path) ? [resolve(path)] : [...new Set(bases.map((base) => resolve(base, path)))];
  };
  const enter = (folders: readonly string[]): void => {
    if (folders.every((folder) => heres.includes(folder))) return;
    // Still where it was too: a `cd` may fail, or run in a subshell.
    heres = [...new Set([...heres, ...folders])];
    if (heres.length > MAX_FOLDERS) {
      note(TOO_MANY_FOLDERS);
      heres = heres.slice(0, MAX_FOLDERS);
    }
  };

  for (const [name, value] of Object.entries(env)) {
    if (!GIT_LOCATION_VARIABLES.includes(name)) continue;
    const named = `${name}=${value} in its environment`;
    add(folderOf(value, heres, named), named);
  }
  if (tooLongToRead(argv)) return { ...found, atRunTime: [TOO_LONG_TO_READ], namesGit: true };
  for (const command of looseCommands(argv)) {
    for (let i = 0; i < command.length; i++) {
      const word = command[i]!;
      const assignment = GIT_PLACE_ASSIGNMENT.exec(word);
      if (assignment) {
        add(folderOf(assignment[2]!, heres, word), word);
      } else if (CHANGE_DIRECTORY.has(word)) {
        // Past its options (-L, -P, -e, -@, --). `cd -` goes back to a folder already taken; a bare `cd` to HOME.
        let at = i + 1;
        while (command[at]?.startsWith('-') && command[at] !== '-') if (command[at++] === '--') break;
        const target = command[at];
        const home = env.HOME === undefined ? [] : [resolve(here, env.HOME)];
        const folders =
          target === undefined ? home : target === '-' ? [] : folderOf(target, heres, `${word} ${target}`);
        add(folders, target === undefined ? word : `${word} ${target}`);
        enter(folders);
        i = at;
      } else if (programName(word) === 'env') {
        i = envChdir(command, i, (dir) => add(folderOf(dir, heres, `env -C ${dir}`), `env -C ${dir}`));
      } else if (programName(word) === 'git' || programName(word).startsWith('git-')) {
        found.namesGit = true;
        i = gitOptions(command, i, heres, folderOf, add);
      }
    }
  }
  return found;
}

/** Reads git's global options after `command[at]` (git), adding the folders they name; the index of the last one. */
function gitOptions(
  command: readonly string[],
  at: number,
  heres: readonly string[],
  folderOf: (word: string, bases: readonly string[], named: string) => string[],
  add: (folders: readonly string[], named: string) => void,
): number {
  let bases = heres; // `-C` folders add up: `git -C a -C b` is in a/b
  let i = at + 1;
  for (; i < command.length; i++) {
    const arg = command[i]!;
    const [option, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (GIT_FOLDER_OPTIONS.has(option)) {
      const value = inline ?? command[++i];
      if (value === undefined) break;
      const named = `${option} ${value}`;
      const folders = folderOf(value, bases, named);
      add(folders, named);
      if (option === '-C' && folders.length > 0) bases = folders;
    } else if (GIT_VALUE_OPTIONS.has(option) && inline === undefined) {
      i++;
    } else if (!arg.startsWith('-')) {
      break; // the subcommand
    }
  }
  return i;
}

/** Reads `env`'s options after `command[at]`, passing each `-C`/`--chdir` folder on; the index of the last option. */
function envChdir(command: readonly string[], at: number, chdir: (dir: string) => void): number {
  let i = at + 1;
  for (; i < command.length; i++) {
    const arg = command[i]!;
    if (arg === '-C' || arg === '--chdir') {
      const dir = command[i + 1];
      if (dir !== undefined) chdir(dir);
      i++;
    } else if (arg.startsWith('--chdir=')) {
      chdir(arg.slice('--chdir='.length));
    } else if (arg.startsWith('-C') && arg.length > 2) {
      chdir(arg.slice(2));
    } else if (!arg.startsWith('-')) {
      return i - 1; // an assignment or the program: read by the caller
    }
  }
  return i;
}

/** The last path component: `/usr/bin/git` is git. */
const programName = (word: string): string => word.slice(word.lastIndexOf('/') + 1);

/**
 * The words of each command `argv` may run, loosely: the argv itself (its words whole, but for a shell's `-c` script,
 * which is no folder), then its words joined and cut as the danger check's loose split cuts a script, which reads a
 * script wherever it stands (`env GIT_DIR=x bash -c 'git status'`, `bash -lc 'cd x && git status'`).
 */
function looseCommands(argv: readonly string[]): string[][] {
  const whole = argv.filter((word, i) => !(/\s/.test(word) && /^-[A-Za-z]*c$/.test(argv[i - 1] ?? '')));
  const split = argv
    .join(' ')
    .split(/[;&|()`\n]/)
    .map((segment) =>
      segment
        .split(/\s+/)
        .map((w) => w.replace(/["'\\]/g, ''))
        .filter((w) => w !== ''),
    );
  return [whole, ...split];
}
