/**
 * How a model trained on Codex asks for a patch in a shell command: the whole command is
 * `apply_patch <<'EOF'` (or `applypatch`, any heredoc delimiter, quoted or not), the patch, the delimiter line;
 * or the same after `cd <dir> && `. Anything around it (`; echo done`, a pipe, a second `cd`) is not one: the
 * command then runs in the shell as written. The heredoc body is taken literally, `$` and all.
 */
export interface PatchInvocation {
  /** The heredoc's body, without its final newlines. */
  patch: string;
  /** The directory of a leading `cd`, as written (relative to the call's working directory). */
  cd?: string;
}

// cd's one argument: a plain word, a 'single-quoted' or a "double-quoted" string.
const CD = String.raw`cd[ \t]+(?:'([^']*)'|"([^"\\$\x60]*)"|([^\s'"\\;&|<>()$\x60]+))[ \t]*&&[ \t]*`;
const HEAD = new RegExp(
  String.raw`^[ \t]*(?:${CD})?(?:apply_patch|applypatch)[ \t]*<<[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([A-Za-z0-9_]+))[ \t]*\n`,
);

/** The patch a command asks for, or undefined when the command is not an apply_patch invocation. */
export function parseInvocation(command: string): PatchInvocation | undefined {
  const head = HEAD.exec(command);
  if (!head) return undefined;
  const delimiter = head[4] ?? head[5] ?? head[6]!;
  const body = head[0].length;
  const end = delimiterLine(command, body, delimiter);
  if (end === undefined) return undefined; // an unterminated heredoc is the shell's to report
  if (command.slice(end.after).trim() !== '') return undefined;
  const cd = head[1] ?? head[2] ?? head[3];
  const patch = withoutFinalNewlines(command.slice(body, Math.max(body, end.start - 1)));
  return { patch, ...(cd !== undefined ? { cd } : {}) };
}

/**
 * The first line of `text` from `from` on (`from` starts a line) that is exactly `delimiter`: where it starts and
 * where the text after it (past its newline) starts. Native searches for the delimiter, then past the line it fails
 * on: lines without it (4 MiB of blank lines) are skipped at memory speed rather than one loop turn each, and a line
 * with it in the wrong place costs one turn (`\nEOF\n` as one search pattern is far slower on blank lines).
 */
function delimiterLine(text: string, from: number, delimiter: string): { start: number; after: number } | undefined {
  for (let start = text.indexOf(delimiter, from); start >= 0;) {
    const end = start + delimiter.length;
    const lineStart = start === from || text.charCodeAt(start - 1) === 0x0a;
    if (lineStart && (end === text.length || text.charCodeAt(end) === 0x0a)) return { start, after: end + 1 };
    const newline = text.indexOf('\n', start);
    if (newline < 0) return undefined;
    start = text.indexOf(delimiter, newline + 1);
  }
  return undefined;
}

/** `text` without the newlines it ends with; an index scan, as `/\n+$/` is tried at every newline of a long run. */
function withoutFinalNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  return text.slice(0, end);
}
