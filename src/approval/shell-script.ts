/**
 * Reads a bash script as a list of simple commands, when it is nothing more: plain words joined by `&& || ; |`.
 * Pure. Anything else (redirections, substitutions, globs, variables, compound commands) reads as undefined,
 * which the approval layer takes as "cannot tell what this runs".
 */

/** A set of space-separated words: keeps long word lists on one line. */
export function words(list: string): ReadonlySet<string> {
  return new Set(list.split(' '));
}

/** Characters that mean themselves in an unquoted bash word (no globbing, expansion, redirection or syntax). */
const PLAIN_CHARS = String.raw`A-Za-z0-9_\-./,:+=@%^\]`;
const PLAIN_CHAR = new RegExp(`^[${PLAIN_CHARS}]$`);
/** Whether each ASCII character is plain, looked up by code: the tokenizer reads a run of them without a regex each. */
const PLAIN_CODES = Uint8Array.from({ length: 128 }, (_, code) => (PLAIN_CHAR.test(String.fromCharCode(code)) ? 1 : 0));
/** A word that needs no quoting; commandLine quotes every other. */
export const PLAIN_WORD = new RegExp(`^[${PLAIN_CHARS}]+$`);
/** `NAME=value` before a command sets a variable for it (or for the shell). */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** Words that open or close compound commands; a script using them is not a list of simple commands. */
const RESERVED_WORDS = words('case coproc do done elif else esac fi for function if select then time until while');

/**
 * What bash runs itself, never from PATH: its builtins and keywords (`compgen -b`, `compgen -k`), also zsh's and
 * dash's common ones.
 */
export const SHELL_BUILTINS = words(
  '. : [ [[ ]] ! { } alias bg bind break builtin caller case cd command compgen complete compopt continue coproc declare dirs disown do done echo elif else enable esac eval exec exit export false fc fg fi for function getopts hash help history if in jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return select set shift shopt source suspend test then time times trap true type typeset ulimit umask unalias unset until wait while',
);

type Token = { word: string } | { op: '&&' | '||' | ';' | '|' | '\n' };

/**
 * The simple commands (argv arrays) of a bash script made only of plain words — unquoted safe characters,
 * 'single quoted' text, "double quoted" text without `$`, backticks or backslashes — joined by `&&`, `||`, `;`, `|`
 * and newlines. Undefined for anything else (redirections, substitutions, globs, assignments, compound commands,
 * empty commands) and for an empty script: undefined means "cannot tell what this runs".
 */
export function parseShellScript(script: string): string[][] | undefined {
  const tokens = tokenize(script);
  if (tokens === undefined) return undefined;
  const commands: string[][] = [];
  let current: string[] = [];
  let needsCommand = false; // after `&&`, `||` or `|`, the script may not end
  const finish = (): boolean => {
    const first = current[0];
    if (first === undefined || RESERVED_WORDS.has(first) || ASSIGNMENT.test(first)) return false;
    commands.push(current);
    current = [];
    return true;
  };
  for (const token of tokens) {
    if ('word' in token) {
      current.push(token.word);
      needsCommand = false;
    } else if (token.op === '\n') {
      // A newline ends a command; blank lines, and a newline after an operator, are allowed.
      if (current.length > 0 && !finish()) return undefined;
    } else {
      if (!finish()) return undefined;
      needsCommand = token.op !== ';';
    }
  }
  if (current.length > 0 && !finish()) return undefined;
  return commands.length === 0 || needsCommand ? undefined : commands;
}

/** Words and operators of a plain script; undefined at the first character that is not plain. */
function tokenize(script: string): Token[] | undefined {
  const tokens: Token[] = [];
  let word: string | undefined; // undefined: between words ('' is an empty quoted word)
  const endWord = (): void => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  const isBoundary = (c: string): boolean => c === '' || ' \t\n;&|'.includes(c);
  for (let i = 0; i < script.length; i++) {
    const c = script.charAt(i);
    if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '\n') {
      endWord();
      tokens.push({ op: '\n' });
    } else if (c === "'" || c === '"') {
      const end = script.indexOf(c, i + 1);
      const quoted = script.slice(i + 1, end);
      if (end < 0 || (c === '"' && /[$`\\]/.test(quoted))) return undefined;
      word = (word ?? '') + quoted;
      i = end;
    } else if (c === '&' || c === '|' || c === ';') {
      endWord();
      const pair = script.slice(i, i + 2);
      if (pair === '&&' || pair === '||') {
        tokens.push({ op: pair });
        i++;
      } else if (c === '&') {
        return undefined; // background job
      } else {
        tokens.push({ op: c });
      }
    } else if (c === '[' && word === undefined && isBoundary(script.charAt(i + 1))) {
      word = '['; // the `[` command; a `[` inside a word would be a glob
    } else if (PLAIN_CODES[script.charCodeAt(i)] === 1) {
      // The whole run at once: a character at a time made a 1 MiB word cost half a second.
      let end = i + 1;
      while (PLAIN_CODES[script.charCodeAt(end)] === 1) end++;
      word = (word ?? '') + script.slice(i, end);
      i = end - 1;
    } else {
      return undefined;
    }
  }
  endWord();
  return tokens;
}
