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
  const lines = command.slice(head[0].length).split('\n');
  const end = lines.indexOf(delimiter);
  if (end < 0) return undefined; // an unterminated heredoc is the shell's to report
  if (lines.slice(end + 1).some((line) => line.trim() !== '')) return undefined;
  const cd = head[1] ?? head[2] ?? head[3];
  return { patch: withoutFinalNewlines(lines.slice(0, end).join('\n')), ...(cd !== undefined ? { cd } : {}) };
}

/** `text` without the newlines it ends with; an index scan, as `/\n+$/` is tried at every newline of a long run. */
function withoutFinalNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end--;
  return text.slice(0, end);
}
