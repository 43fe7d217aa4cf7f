import { defaultText, flagUsage, type SettingLeaf } from './setting-table.js';

/** --help is wrapped to this many columns. */
export const HELP_WIDTH = 100;
const INDENT = '  ';
const GAP = '  ';
/** A description column narrower than this goes below its flag instead. */
const MIN_TEXT_WIDTH = 40;

/** Joins words that wrapping must not part; turned back into a space once lines are made. */
const GLUE = '\u0000';

/** Greedy word wrap; a word longer than `width` gets a line of its own. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/[ \t\n]+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((made) => made.replaceAll(GLUE, ' '));
}

/** One entry per flag: `--flag PLACEHOLDER  description (default: X)`, descriptions aligned and wrapped. */
export function flagHelp(leaves: SettingLeaf[], width = HELP_WIDTH): string {
  const rows = leaves.flatMap((leaf) => {
    const usage = flagUsage(leaf);
    return usage === undefined
      ? []
      : [{ usage, text: `${leaf.meta.description} (default:${GLUE}${defaultText(leaf)})` }];
  });
  const column = INDENT.length + Math.max(0, ...rows.map((row) => row.usage.length)) + GAP.length;
  const textWidth = Math.max(MIN_TEXT_WIDTH, width - column);
  const pad = ' '.repeat(width - textWidth);
  return rows
    .flatMap(({ usage, text }) => {
      const [first = '', ...rest] = wrap(text, textWidth);
      const head = `${INDENT}${usage}${GAP}`;
      const lines = head.length <= pad.length ? [head.padEnd(pad.length) + first] : [`${INDENT}${usage}`, pad + first];
      return [...lines, ...rest.map((line) => pad + line)];
    })
    .join('\n');
}

/** `[--host ADDR] [--allow-host NAME]...`: the flags of a table for a usage line. */
export function flagSynopsis(leaves: SettingLeaf[]): string {
  return leaves
    .flatMap((leaf) => {
      const usage = flagUsage(leaf);
      if (usage === undefined) return [];
      return [`[${usage}]${leaf.kind === 'list' || leaf.kind === 'map' ? '...' : ''}`];
    })
    .join(' ');
}
