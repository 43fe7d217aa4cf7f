/**
 * Where `pattern` first occurs in `lines` at or after `start`, or -1. Each pass is looser than the one before, and
 * the first pass that finds it wins: exact; ignoring trailing whitespace; ignoring whitespace at both ends; and
 * with typographic dashes, quotes and spaces read as their ASCII forms (a model often writes `-` where the file has
 * `–`). `endOfFile`: the pattern should end the file, so the search starts at the last place it can fit.
 */
export function seekLines(
  lines: readonly string[],
  pattern: readonly string[],
  start: number,
  endOfFile: boolean,
): number {
  if (pattern.length === 0) return start;
  if (pattern.length > lines.length) return -1;
  const from = endOfFile ? lines.length - pattern.length : start;
  for (const same of PASSES) {
    for (let i = from; i + pattern.length <= lines.length; i++) {
      if (pattern.every((line, k) => same(lines[i + k]!, line))) return i;
    }
  }
  return -1;
}

const PASSES: ((a: string, b: string) => boolean)[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
  (a, b) => asciiPunctuation(a) === asciiPunctuation(b),
];

const DASHES = /[\u2010-\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018-\u201B]/g;
const DOUBLE_QUOTES = /[\u201C-\u201F]/g;
const SPACES = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g;

function asciiPunctuation(line: string): string {
  return line.trim().replace(DASHES, '-').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').replace(SPACES, ' ');
}
