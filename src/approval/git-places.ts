/**
 * Where a command may make git look for a repository: the folders it names to git, for the approval form to check.
 * Pure: an argv, its directory and its environment in, folders out; nothing is looked up.
 *
 * git reads a repository's config (core.fsmonitor, core.pager, hooks …) from where it finds one: the directory it
 * starts in and the folders above it (discovery), a `-C` folder, or the folder `--git-dir`/`GIT_DIR` names. A
 * command reaches such folders by its directory, `cd`/`pushd`, `env -C`, git's `-C`, `--git-dir`, `--work-tree`, and
 * the variables GIT_DIR, GIT_WORK_TREE and GIT_COMMON_DIR (set in the script, with `export` or `env`, or in the
 * call's environment). git also reads config, and runs programs, from where other variables and options point
 * (GIT_CONFIG_GLOBAL, HOME's `.gitconfig`, GIT_EXEC_PATH, `--exec-path` …: `configs`), and takes config the command
 * gives it (`-c`, `--config-env`, GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS: `settings`). The script is read loosely, as the danger check reads one it cannot parse (quotes dropped,
 * cut at `; & | ( )`, backticks and newlines), so a word that is only data may count; one it can see is not
 * missed. A relative folder is taken from every folder the script may be in by then.
 */

import { isAbsolute, resolve } from 'node:path';
import { GIT_CONFIG_VARIABLES, GIT_REPOSITORY_VARIABLES } from '../spawn/env.js';
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
  /** Files and folders git reads config or runs programs from, where the command points it (GIT_CONFIG_GLOBAL=…). */
  configs: GitPlace[];
  /** Words that give git config itself (`-c core.pager=x`, GIT_CONFIG_COUNT=1), as written, each once. */
  settings: string[];
  /** Words naming a folder only running the command tells (`cd "$d"`, `GIT_DIR=$(…)`), as written, each once. */
  atRunTime: string[];
  /** Whether a word of the command is a program named git (`git`, `/usr/bin/git`, `git-upload-pack`). */
  namesGit: boolean;
}

/** `GIT_DIR=…` and the like: an assignment of one of GIT_REPOSITORY_VARIABLES. */
const GIT_PLACE_ASSIGNMENT = new RegExp(`^(${GIT_REPOSITORY_VARIABLES.join('|')})=(.*)$`);
/** Variables that give git config themselves, whatever their value. */
const GIT_SETTING_VARIABLES = /^(GIT_CONFIG_COUNT|GIT_CONFIG_PARAMETERS|GIT_CONFIG_(KEY|VALUE)_\d+)$/;
/** `HOME=…`, `GIT_CONFIG_GLOBAL=…` and the like: an assignment of HOME or one of GIT_CONFIG_VARIABLES. */
const GIT_CONFIG_ASSIGNMENT = new RegExp(`^(HOME|GIT_CONFIG_(KEY|VALUE)_\\d+|${GIT_CONFIG_VARIABLES.join('|')})=(.*)$`);
/** What git reads in the folder a variable names: its config files (HOME and XDG_CONFIG_HOME), or the folder. */
const CONFIG_FILES: Readonly<Record<string, readonly string[]>> = {
  HOME: ['.gitconfig', '.config/git/config'],
  XDG_CONFIG_HOME: ['git/config'],
};
/** git's global options that name a folder: the `-C` folder, the repository, the work tree. */
const GIT_FOLDER_OPTIONS = words('-C --git-dir --work-tree');
/** git's global options that give it config. */
const GIT_SETTING_OPTIONS = words('-c --config-env');
/** git's other global options that take a separate value. */
const GIT_VALUE_OPTIONS = words('--namespace --super-prefix --list-cmds');
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
  const found: GitPlaces = { places: [{ folder: here }], configs: [], settings: [], atRunTime: [], namesGit: false };
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
  const give = (named: string): void => {
    if (!found.settings.includes(named) && found.settings.length < MAX_AT_RUN_TIME) found.settings.push(named);
  };
  /** What git reads where `name=value` points (from each of `bases`), or the setting it gives git. */
  const configure = (name: string, value: string, bases: readonly string[], named: string): void => {
    if (GIT_SETTING_VARIABLES.test(name)) return give(named);
    const files = CONFIG_FILES[name];
    for (const folder of folderOf(value, bases, named)) {
      for (const path of files === undefined ? [folder] : files.map((file) => resolve(folder, file))) {
        if (found.configs.some((c) => c.folder === path)) continue;
        if (found.configs.length >= MAX_PLACES) return note(TOO_MANY_FOLDERS);
        found.configs.push({ folder: path, named });
      }
    }
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
    const named = `${name}=${value} in its environment`;
    if (GIT_REPOSITORY_VARIABLES.includes(name)) add(folderOf(value, heres, named), named);
    else if (name === 'HOME' || GIT_CONFIG_VARIABLES.includes(name)) configure(name, value, heres, named);
  }
  if (tooLongToRead(argv)) return { ...found, atRunTime: [TOO_LONG_TO_READ], namesGit: true };
  for (const command of looseCommands(argv)) {
    for (let i = 0; i < command.length; i++) {
      const word = command[i]!;
      const assignment = GIT_PLACE_ASSIGNMENT.exec(word);
      const config = GIT_CONFIG_ASSIGNMENT.exec(word);
      if (assignment) {
        add(folderOf(assignment[2]!, heres, word), word);
      } else if (config) {
        configure(config[1]!, config[3]!, heres, word);
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
        i = gitOptions(command, i, heres, {
          folderOf,
          add,
          setting: give,
          execPath: (dir, named) => configure('GIT_EXEC_PATH', dir, heres, named),
        });
      }
    }
  }
  return found;
}

/** What gitOptions tells of the options it reads. */
interface GitOptionSink {
  folderOf: (word: string, bases: readonly string[], named: string) => string[];
  /** Folders git takes a repository or work tree from. */
  add: (folders: readonly string[], named: string) => void;
  /** Config the command gives git: `-c name=value`, `--config-env name=VARIABLE`. */
  setting: (named: string) => void;
  /** `--exec-path=folder`: where git runs its own programs from. */
  execPath: (folder: string, named: string) => void;
}

/** Reads git's global options after `command[at]` (git), telling `sink` what they name; the index of the last one. */
function gitOptions(command: readonly string[], at: number, heres: readonly string[], sink: GitOptionSink): number {
  const { folderOf, add } = sink;
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
    } else if (GIT_SETTING_OPTIONS.has(option)) {
      const value = inline ?? command[++i];
      if (value === undefined) break;
      sink.setting(`${option} ${value}`);
    } else if (option === '--exec-path' && inline !== undefined) {
      sink.execPath(inline, arg); // bare, it prints the folder
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
