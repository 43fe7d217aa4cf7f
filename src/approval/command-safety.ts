/**
 * Classifies commands for the approval layer. Pure: an argv in, a verdict out; nothing is run or looked up.
 *
 * Known-safe: every simple command the argv runs is on SAFE_COMMANDS (read-only, harmless programs) and passes that
 * program's option rule (no writing files, no running other programs). Known-safe only ever spares the question for
 * a command that runs where it was asked to: the approval layer never lets it skip a request to leave the sandbox.
 * Dangerous: some simple command is destructive
 * or gains privileges (forced or recursive `rm`, `sudo`, `git reset --hard`, ...). Most commands are neither, and the
 * two never overlap. Anything this module does not recognise is not safe, so the caller asks a person.
 *
 * A shell invocation (`bash -lc '...'`) is judged by the simple commands of its script. The safety check accepts only
 * scripts of plain words joined by `&& || ; |` (parseShellScript); the danger check, which must not miss, falls back
 * to a loose split of any other script (looseSplit). Scripts are read with bash's rules, also when run by zsh or sh.
 */

import { ASSIGNMENT, PLAIN_WORD, SHELL_BUILTINS, parseShellScript, words } from './shell-script.js';

/**
 * The simple commands an argv runs: for `bash|sh|zsh -c|-lc SCRIPT` those of the script (undefined when it is not
 * plain), otherwise the argv itself. A shell outside /bin, /usr/bin and /usr/local/bin is just a program.
 */
export function commandArgv(argv: readonly string[]): string[][] | undefined {
  const script = shellScript(argv);
  return script === undefined ? [[...argv]] : parseShellScript(script);
}

const SHELLS = words('bash sh zsh');
const TRUSTED_BIN_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/'];

/** The script of exactly `[shell, -c|-lc, script]`. */
function shellScript(argv: readonly string[]): string | undefined {
  const [shell, flag, script, ...extra] = argv;
  if (shell === undefined || script === undefined || extra.length > 0 || (flag !== '-c' && flag !== '-lc')) {
    return undefined;
  }
  const name = trustedProgramName(shell);
  return name !== undefined && SHELLS.has(name) ? script : undefined;
}

/** The program's name when argv[0] is a bare name or lives in a standard bin directory; `./ls` is not `ls`. */
function trustedProgramName(argv0: string): string | undefined {
  if (!argv0.includes('/')) return argv0;
  const dir = TRUSTED_BIN_DIRS.find((d) => argv0.startsWith(d));
  const name = dir === undefined ? undefined : argv0.slice(dir.length);
  return name !== undefined && name !== '' && !name.includes('/') ? name : undefined;
}

/** The last path component: for the danger check, `/tmp/x/rm` is as much `rm` as `rm` is. */
function programName(argv0: string): string {
  return argv0.slice(argv0.lastIndexOf('/') + 1);
}

// ── option helpers ───────────────────────────────────────────────────────────────────────────────────────────────

/** The letters of a short-option cluster (`-rf` → `rf`), ending at the first of `valueLetters` (the rest is its value). */
function shortLetters(arg: string, valueLetters = ''): string {
  if (!arg.startsWith('-') || arg.startsWith('--')) return '';
  let letters = '';
  for (const letter of arg.slice(1)) {
    letters += letter;
    if (valueLetters.includes(letter)) break;
  }
  return letters;
}

/** Whether `arg` is `--name`, `--name=value`, or an abbreviation GNU getopt would accept (`--out` for `--output`). */
function isLongOption(arg: string, names: readonly string[]): boolean {
  if (!arg.startsWith('--') || arg === '--') return false;
  const name = arg.slice(2).split('=', 1)[0] ?? '';
  return names.some((long) => long.startsWith(name));
}

/** Options (before any `--`) and operands (the other arguments, and all after `--`) of a command without valued options. */
function splitArgs(args: readonly string[]): { options: string[]; operands: string[] } {
  const end = args.indexOf('--');
  const before = end < 0 ? args : args.slice(0, end);
  const isOption = (arg: string): boolean => arg.startsWith('-') && arg !== '-';
  return {
    options: before.filter(isOption),
    operands: [...before.filter((arg) => !isOption(arg)), ...(end < 0 ? [] : args.slice(end + 1))],
  };
}

/** Operands of a getopt-style command, skipping the separate values of `valueLetters` and `valueLongs` options. */
function operandsOf(args: readonly string[], valueLetters: string, valueLongs: readonly string[]): string[] {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') return [...operands, ...args.slice(i + 1)];
    if (arg.startsWith('--')) {
      if (!arg.includes('=') && isLongOption(arg, valueLongs)) i++;
    } else if (arg.startsWith('-') && arg !== '-') {
      const letters = shortLetters(arg, valueLetters);
      if (letters.length === arg.length - 1 && valueLetters.includes(letters.slice(-1))) i++;
    } else {
      operands.push(arg);
    }
  }
  return operands;
}

// ── known-safe ───────────────────────────────────────────────────────────────────────────────────────────────────

/** Whether a call is dangerous (or safe) given its arguments; `nesting`: how deep it is read (see MAX_NESTING). */
type ArgsRule = (args: readonly string[], nesting?: number) => boolean;
const anyArgs: ArgsRule = () => true;

const UNSAFE_FIND_OPTIONS = words('-exec -execdir -ok -okdir -delete -fls -fprint -fprint0 -fprintf');
const SAFE_GIT_SUBCOMMANDS = words('blame branch diff grep log ls-files rev-parse show status');
const GIT_BRANCH_LISTING = words('--list -a --all -r --remotes -v -vv --verbose --show-current');
const SED_PRINT_RANGE = /^(\d+,)?\d+p$/;

/** Programs that only read and print, whatever their arguments. */
const READ_ONLY_PROGRAMS = words(
  '[ basename cat cd cmp cut diff dirname echo expr false grep head id ls nl pwd readlink realpath seq stat tail test tr true uname wc which whoami',
);

/** Read-only programs, each with the rule its arguments must pass. */
const SAFE_COMMANDS: ReadonlyMap<string, ArgsRule> = new Map([
  ...[...READ_ONLY_PROGRAMS].map((name): [string, ArgsRule] => [name, anyArgs]),
  ...Object.entries<ArgsRule>({
    // macOS base64 writes to -o FILE.
    base64: (args) => !args.some((a) => shortLetters(a, 'bw').includes('o') || isLongOption(a, ['output'])),
    // -s and a bare MMDDhhmm operand set the clock; only +FORMAT operands are reads.
    date: (args) =>
      !args.some((a) => shortLetters(a, 'dfIrs').includes('s') || isLongOption(a, ['set'])) &&
      operandsOf(args, 'dfrs', ['date', 'file', 'reference', 'rfc-3339', 'set']).every((a) => a.startsWith('+')),
    // -C compiles a magic file, writing it out.
    file: (args) => !args.some((a) => shortLetters(a, 'eFfmP').includes('C') || isLongOption(a, ['compile'])),
    find: (args) => !args.some((a) => UNSAFE_FIND_OPTIONS.has(a)),
    git: isSafeGit,
    // bash's printf -v assigns a variable instead of printing.
    printf: (args) => !(args[0]?.startsWith('-v') ?? false),
    // --pre and --hostname-bin run programs; -z runs decompressors.
    rg: (args) =>
      !args.some(
        (a) =>
          shortLetters(a, 'ABCEMTdefgjmrt').includes('z') || isLongOption(a, ['pre', 'hostname-bin', 'search-zip']),
      ),
    // Only `sed -n Np|M,Np [FILE]`: any other script may write files (w) or run commands (e).
    sed: (args) =>
      args.length <= 3 &&
      args[0] === '-n' &&
      SED_PRINT_RANGE.test(args[1] ?? '') &&
      !(args[2]?.startsWith('-') ?? false),
    sort: (args) =>
      !args.some((a) => shortLetters(a, 'kostST').includes('o') || isLongOption(a, ['output', 'compress-program'])),
    // A second operand is the file uniq writes to.
    uniq: (args) => operandsOf(args, 'fsw', ['skip-fields', 'skip-chars', 'check-chars']).length <= 1,
  }),
]);

/**
 * git reads, with no global option before the subcommand (`-c`, `-C`, `--git-dir`, `--exec-path` ... change what
 * runs or which repository is read) except `--no-pager`; `GIT_*=` assignments and `env` never pass the script check.
 * A repository's own config still makes even these run programs (core.fsmonitor, core.pager, diff.external,
 * textconv), and anyone who can write a directory can plant one: so git is known-safe only inside the sandbox
 * (HOST_UNSAFE), where whatever the config runs is held too.
 */
function isSafeGit(args: readonly string[]): boolean {
  const [subcommand, ...rest] = args[0] === '--no-pager' || args[0] === '-P' ? args.slice(1) : args;
  if (subcommand === undefined || !SAFE_GIT_SUBCOMMANDS.has(subcommand)) return false;
  if (subcommand === 'branch') return rest.every((a) => GIT_BRANCH_LISTING.has(a));
  // --output writes a file; --ext-diff and --textconv run configured programs; -O (grep) opens files in a pager.
  return !rest.some(
    (a) =>
      isLongOption(a, ['output', 'ext-diff', 'textconv', 'open-files-in-pager']) ||
      (/^-[^-]/.test(a) && a.includes('O')),
  );
}

/**
 * Where a command would run: in the sandbox, or on the host with no sandbox around it (no sandbox is configured).
 * A command that asks to leave the sandbox is never judged known-safe at all (see assess).
 */
export type SafetyScope = 'sandbox' | 'host';

/** Read-only programs that files they find can steer into running others: known-safe only in the sandbox. */
const HOST_UNSAFE = words('git');

/** True when every simple command `argv` runs is known to be read-only and harmless in `scope`; unknown ⇒ false. */
export function isKnownSafeCommand(argv: readonly string[], scope: SafetyScope): boolean {
  if (tooLongToRead(argv)) return false;
  const commands = commandArgv(argv);
  return commands !== undefined && commands.every((command) => isSafeSimple(command, scope));
}

function isSafeSimple(command: readonly string[], scope: SafetyScope): boolean {
  // A nested script is shorter than the one holding it, so the recursion ends.
  if (shellScript(command) !== undefined) return isKnownSafeCommand(command, scope);
  const [argv0, ...args] = command;
  const name = argv0 === undefined ? undefined : trustedProgramName(argv0);
  if (name === undefined || (scope === 'host' && HOST_UNSAFE.has(name))) return false;
  const rule = SAFE_COMMANDS.get(name);
  return rule !== undefined && rule(args);
}

// ── dangerous ────────────────────────────────────────────────────────────────────────────────────────────────────

const always: ArgsRule = () => true;
const LOOSE_SHELLS = words('bash dash ksh sh zsh');
/** Words that may stand before a command in a script the loose split cuts up. */
const LOOSE_KEYWORDS = words('! { } do elif else if then time until while');
const FIND_EXEC_ACTIONS = words('-exec -execdir -ok -okdir');
const FIND_EXEC_ENDS = words('; + \\;');
const GIT_GLOBAL_OPTIONS_WITH_VALUE = words('-C -c --config-env --git-dir --namespace --super-prefix --work-tree');
const WHOLE_TREE_PATHSPECS = words('. ./ :/ :(top) *');
const SYSTEMCTL_POWER_VERBS = words('halt kexec poweroff reboot');

/** Programs that run the rest of their argv as a command: the options that take a separate value, operands before it. */
interface Wrapper {
  valueOptions: readonly string[];
  leadingOperands?: number;
  assignments?: boolean;
}
const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map(
  Object.entries({
    command: { valueOptions: [] },
    env: { valueOptions: ['-u', '-C', '-S', '--unset', '--chdir', '--split-string'], assignments: true },
    exec: { valueOptions: ['-a'] },
    nice: { valueOptions: ['-n', '--adjustment'] },
    nocorrect: { valueOptions: [] }, // zsh
    noglob: { valueOptions: [] }, // zsh
    nohup: { valueOptions: [] },
    setsid: { valueOptions: [] },
    stdbuf: { valueOptions: ['-i', '-o', '-e'] },
    time: { valueOptions: ['-f', '-o', '--format', '--output'] },
    timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], leadingOperands: 1 },
    xargs: { valueOptions: ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s'] },
  }),
);

/** Programs that are dangerous whatever their arguments: privilege, power, filesystems. */
const ALWAYS_DANGEROUS = words('doas halt mke2fs mkswap pkexec poweroff reboot shutdown su sudo wipefs');

/** Destructive programs whose arguments decide, each with the rule that makes a call to it dangerous. */
const ARGUMENT_RULES: ReadonlyMap<string, ArgsRule> = new Map(
  Object.entries<ArgsRule>({
    chgrp: isRecursiveOnRootLike,
    chmod: isRecursiveOnRootLike,
    chown: isRecursiveOnRootLike,
    dd: (args) => args.some((a) => a.startsWith('of=')),
    find: isDangerousFind,
    git: isDangerousGit,
    rm: isDangerousRm,
    systemctl: (args) => args.some((a) => SYSTEMCTL_POWER_VERBS.has(a)),
  }),
);

/** Every destructive program, with the rule that makes a call to it dangerous. */
const DANGER_RULES: ReadonlyMap<string, ArgsRule> = new Map([
  ...[...ALWAYS_DANGEROUS].map((name): [string, ArgsRule] => [name, always]),
  ...ARGUMENT_RULES,
]);

/**
 * True when some simple command `argv` may run is destructive or gains privileges. Plain scripts are judged by
 * their parsed commands (`echo "rm -rf /"` is not dangerous); other scripts by a loose split, which can also flag
 * words that are only data (`echo "x; rm -rf /" > f`).
 */
export function isDangerousCommand(argv: readonly string[]): boolean {
  // Too long to be run (see MAX_READ_BYTES): asked about rather than read.
  return tooLongToRead(argv) || isDangerousAt(argv, 0);
}

/**
 * The longest command the approval reads, in bytes: Linux's limit on one argument (MAX_ARG_STRLEN), so `bash -lc`
 * cannot run a longer script anyway. Reading is linear, but a script of many small commands costs about a
 * microsecond a byte, and a 10 MiB message is ten seconds of the server's loop.
 */
const MAX_READ_BYTES = 128 * 1024;
/**
 * How many shells, evals and `find -exec`s deep a command is read for danger: each level reads again what it runs,
 * and `eval eval … rm` (20 000 of them) held the server for minutes, then overflowed the stack. Past it, dangerous.
 */
const MAX_NESTING = 8;

export function tooLongToRead(argv: readonly string[]): boolean {
  let bytes = 0;
  for (const arg of argv) if ((bytes += arg.length) > MAX_READ_BYTES) return true;
  return false;
}

function isDangerousAt(argv: readonly string[], nesting: number): boolean {
  if (nesting > MAX_NESTING) return true;
  const script = looseShellScript(argv);
  if (script === undefined) return isDangerousSimple(argv, nesting);
  return (parseShellScript(script) ?? looseSplit(script)).some((command) => isDangerousSimple(command, nesting));
}

function isDangerousSimple(command: readonly string[], nesting: number): boolean {
  if (nesting > MAX_NESTING) return true;
  const inner = unwrap(command);
  if (looseShellScript(inner) !== undefined) return isDangerousAt(inner, nesting + 1);
  const [argv0, ...args] = inner;
  if (argv0 === undefined) return false;
  // A program named by a variable or a substitution (`$x -rf dir`, `$(echo rm) -rf dir`, which the loose split cuts
  // before its arguments) could be any: dangerous when its arguments would make one of them so.
  if (/[$`]/.test(argv0)) return [...ARGUMENT_RULES.values()].some((rule) => rule(args, nesting));
  if (argv0.startsWith('-')) return [...ARGUMENT_RULES.values()].some((rule) => rule(inner, nesting));
  const name = programName(argv0);
  // eval's words, joined, are a command line of their own (`eval "rm -rf x"`); shorter than its script, so it ends.
  if (name === 'eval') {
    // `eval eval x` runs what `eval x` runs: the leading ones are read as one level.
    let first = 0;
    while (args[first] === 'eval') first++;
    return isDangerousAt(['sh', '-c', args.slice(first).join(' ')], nesting + 1);
  }
  const rule = DANGER_RULES.get(name) ?? (name.startsWith('mkfs') ? always : undefined);
  return rule !== undefined && rule(args, nesting);
}

/** The script of any shell given `-c` (in any option cluster: `-c`, `-lc`, `-ec` ...), wherever the shell lives. */
function looseShellScript(argv: readonly string[]): string | undefined {
  const [shell, ...args] = argv;
  if (shell === undefined || !LOOSE_SHELLS.has(programName(shell))) return undefined;
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (['-o', '+o', '-O', '+O'].includes(arg)) i++;
    else if (/^-[A-Za-z]*c/.test(arg)) sawC = true;
    else if (!arg.startsWith('-') && !arg.startsWith('+')) return sawC ? arg : undefined;
  }
  return undefined;
}

/**
 * Over-approximates the simple commands of any script: cuts at `; & | ( )`, backticks and newlines, splits on
 * whitespace, drops quote characters and backslashes, then leading keywords and assignments.
 */
function looseSplit(script: string): string[][] {
  return script
    .split(/[;&|()`\n]/)
    .map((segment) => {
      const parts = segment
        .split(/\s+/)
        .map((w) => w.replace(/["'\\]/g, ''))
        .filter((w) => w !== '');
      const start = parts.findIndex((w) => !LOOSE_KEYWORDS.has(w) && !ASSIGNMENT.test(w));
      return start < 0 ? [] : parts.slice(start);
    })
    .filter((command) => command.length > 0);
}

/** The command a wrapper (`env FOO=1 nice -n 5 rm ...`) runs; the command itself when it is not one. */
function unwrap(command: readonly string[]): readonly string[] {
  // Moves a start index and copies once: a copy per wrapper made `nice nice … ls` cost its square.
  let start = 0;
  for (let wrapper = wrapperAt(command, start); wrapper !== undefined; wrapper = wrapperAt(command, start)) {
    let i = start + 1;
    while (i < command.length) {
      const arg = command[i] ?? '';
      if (arg === '--') {
        i++;
        break;
      }
      if (wrapper.valueOptions.includes(arg)) i += 2;
      else if (arg.startsWith('-') || (wrapper.assignments === true && ASSIGNMENT.test(arg))) i++;
      else break;
    }
    start = i + (wrapper.leadingOperands ?? 0);
  }
  return start === 0 ? command : command.slice(start);
}

function wrapperAt(command: readonly string[], at: number): Wrapper | undefined {
  return command[at] === undefined ? undefined : WRAPPERS.get(programName(command[at]));
}

/** `/`, a top-level directory, a home directory, or everything here (`*`), with or without a trailing `/`, `/*`. */
function isRootLikePath(path: string): boolean {
  const p = withoutTrailingSlashes(path);
  return (
    p === '' ||
    p === '*' ||
    p === '$HOME' ||
    p === '${HOME}' ||
    /^~[A-Za-z0-9_.-]*$/.test(p) ||
    /^\/[^/]+$/.test(p) ||
    /^\/home\/[^/]+$/.test(p)
  );
}

/** `path` without its trailing `/`, `/*` and `/.` steps, scanned from the end (a regex would rescan a run of slashes
 * from each of them). */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  for (;;) {
    if (path[end - 1] === '/') end -= 1;
    else if (path[end - 2] === '/' && (path[end - 1] === '*' || path[end - 1] === '.')) end -= 2;
    else return path.slice(0, end);
  }
}

/** rm recursive and forced, or either on a root-like target, or told not to protect `/`. */
function isDangerousRm(args: readonly string[]): boolean {
  const { options, operands } = splitArgs(args);
  const recursive = options.some((o) => /[rR]/.test(shortLetters(o)) || isLongOption(o, ['recursive']));
  const force = options.some((o) => shortLetters(o).includes('f') || isLongOption(o, ['force']));
  if (options.some((o) => isLongOption(o, ['no-preserve-root']))) return true;
  return (recursive && force) || ((recursive || force) && operands.some(isRootLikePath));
}

function isRecursiveOnRootLike(args: readonly string[]): boolean {
  const { options, operands } = splitArgs(args);
  const recursive = options.some((o) => shortLetters(o).includes('R') || isLongOption(o, ['recursive']));
  return recursive && operands.some(isRootLikePath);
}

/** find running a dangerous command (-exec ... ;), or deleting from a root-like starting point. */
function isDangerousFind(args: readonly string[], nesting = 0): boolean {
  // -delete removes what it finds, the whole tree below the starting points: `rm -rf` by another name.
  if (args.includes('-delete')) return true;
  for (let i = 0; i < args.length; i++) {
    if (!FIND_EXEC_ACTIONS.has(args[i]!)) continue;
    let end = i + 1;
    while (end < args.length && !FIND_EXEC_ENDS.has(args[end]!)) end++;
    if (isDangerousSimple(args.slice(i + 1, end), nesting + 1)) return true;
    i = end; // the action's command is read; a later -exec begins after its end
  }
  return false;
}

/** The subcommand and its arguments, after git's global options (which `-C dir`, `-c k=v` ... must not hide). */
function gitSubcommand(args: readonly string[]): { name: string; args: readonly string[] } | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (GIT_GLOBAL_OPTIONS_WITH_VALUE.has(arg)) i++;
    else if (!arg.startsWith('-')) return { name: arg, args: args.slice(i + 1) };
  }
  return undefined;
}

/** git that throws away work: reset --hard, clean -f, forced or deleting push, checkout/restore of the whole tree. */
function isDangerousGit(args: readonly string[]): boolean {
  const subcommand = gitSubcommand(args);
  if (subcommand === undefined) return false;
  const { options, operands } = splitArgs(subcommand.args);
  const hasOption = (letter: string, valueLetters: string, longs: readonly string[]): boolean =>
    options.some((o) => shortLetters(o, valueLetters).includes(letter) || isLongOption(o, longs));
  const wholeTree = operands.some((o) => WHOLE_TREE_PATHSPECS.has(o));
  switch (subcommand.name) {
    case 'reset':
      return options.some((o) => isLongOption(o, ['hard']));
    case 'clean':
      return hasOption('f', 'e', ['force']);
    case 'push':
      return (
        hasOption('f', 'o', ['force', 'force-with-lease']) ||
        hasOption('d', 'o', ['delete']) ||
        operands.some((o) => o.startsWith('+') || o.startsWith(':'))
      );
    case 'checkout':
      return hasOption('f', 'bB', ['force']) || wholeTree;
    case 'restore': {
      // --staged alone only unstages; the worktree (the default) loses the edits.
      const stagedOnly = hasOption('S', 's', ['staged']) && !hasOption('W', 's', ['worktree']);
      return wholeTree && !stagedOnly;
    }
    default:
      return false;
  }
}

// ── command line ─────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The command as the person asked reads it: a shell invocation's script exactly as it will run (no blank is
 * dropped: inside a heredoc or a quote, blanks are part of the program), otherwise the argv shell-quoted and joined
 * with spaces. For display only: approvals are keyed by the argv itself (ApprovalCache).
 */
export function commandLine(argv: readonly string[]): string {
  const script = shellScript(argv);
  return script ?? quoteArgv(argv);
}

/** An argv as one shell-quoted line, every argument whole: `/usr/bin/bash -lc 'git status --short'`. */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * The programs a shell's script (`argv` is `shell -c|-lc SCRIPT`, any shell) names first in its simple commands,
 * past wrappers (`env`, `nice` …), each once, in order: what PATH decides. Builtins, keywords and words that
 * expand are left out (the shell does not look them up). Over-approximates like the danger check (a loose split of
 * a script that is not plain), so a word that is only data may show; none is missed that the split can see.
 */
export function programsOf(argv: readonly string[]): string[] {
  const script = looseShellScript(argv);
  if (script === undefined) return [];
  const names = (parseShellScript(script) ?? looseSplit(script))
    .map((command) => unwrap(command)[0])
    .filter((word): word is string => word !== undefined && !/[$`*?[~]/.test(word) && !SHELL_BUILTINS.has(word));
  return [...new Set(names)];
}

function shellQuote(arg: string): string {
  return PLAIN_WORD.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Variables a shell (or the dynamic loader) reads to find or run programs: bash's, zsh's (`path`, `fpath`), ld.so's. */
const LOOKUP_VARIABLES = words(
  'BASHOPTS BASH_ENV CDPATH ENV FPATH GLOBIGNORE IFS LD_AUDIT LD_LIBRARY_PATH LD_PRELOAD PATH SHELLOPTS ZDOTDIR fpath path',
);
/** Builtins that change where a later program name leads, or run text as commands (`eval`, `source`). */
const LOOKUP_BUILTINS = words('. alias builtin cd enable eval exec hash popd pushd source');
/** Builtins that assign a variable they are given by name, which may be one of LOOKUP_VARIABLES under another spelling. */
const ASSIGNING_BUILTINS = words('declare export let local mapfile printf read readarray readonly typeset unset');
/** A word that names or assigns a lookup variable (`PATH=…`, `PATH+=…`, `path[1]=…`, `export PATH`, `ref=PATH`). */
const LOOKUP_WORD = new RegExp(`(^|=)(${[...LOOKUP_VARIABLES].join('|')})(\\+?=|\\[|$)`);
/** `${PATH:=…}` assigns as it expands. */
const LOOKUP_EXPANSION = new RegExp(`\\$\\{(${[...LOOKUP_VARIABLES].join('|')}):?=`);
/** `name() …`: a function, which a later command of that name runs instead of the program. */
const FUNCTION_DEFINITION = /(^|[\s;&|(){}])[^\s;&|()<>'"$`\\]+\s*\(\s*\)/;

/**
 * How a command (a shell's `-c` script, or an argv) changes how its own programs are found, by what does it: an
 * assignment of PATH or another variable of LOOKUP_VARIABLES, `cd`, `hash`, `alias`, `source`, `eval`, `exec`, an
 * `env` with options or such assignments, `command -p`, a function. Empty when it does none of these, so the
 * programs its PATH finds are the ones that run. Over-approximates like the danger check (quotes dropped, so a
 * nested `bash -c '…'` is read too; a word that is only data may count); what it cannot see, it must not miss.
 */
export function lookupChanges(argv: readonly string[]): string[] {
  const script = looseShellScript(argv);
  const found = new Set<string>();
  if (script !== undefined) {
    if (FUNCTION_DEFINITION.test(script)) found.add('a function definition');
    const expansion = LOOKUP_EXPANSION.exec(script);
    if (expansion) found.add(`\${${expansion[1]}=…}`);
  }
  const segments =
    script === undefined
      ? [argv]
      : script.split(/[;&|()`\n{}]/).map((s) =>
          s
            .split(/\s+/)
            .map((w) => w.replace(/["'\\]/g, ''))
            .filter((w) => w !== ''),
        );
  for (const words of segments) lookupChangesOf(words, found);
  return [...found];
}

function lookupChangesOf(command: readonly string[], found: Set<string>): void {
  for (const [i, word] of command.entries()) {
    const match = LOOKUP_WORD.exec(word);
    if (match) found.add(match[3] === '' ? match[2]! : `${match[2]!}=`);
    const program = programName(word);
    const args = command.slice(i + 1);
    if (LOOKUP_BUILTINS.has(word) || word === 'function') found.add(word);
    else if (ASSIGNING_BUILTINS.has(word) && args.some((a) => /^[^=]*[$`]/.test(a) || /^-[A-Za-z]*n/.test(a))) {
      found.add(`${word} of a name made at run time or a reference`);
    } else if (word === 'command' && args.some((a) => /^-[A-Za-z]*p/.test(a))) found.add('command -p');
    else if (program === 'env' && i === 0 && args.some((a) => a.startsWith('-'))) found.add('env with options');
  }
}
