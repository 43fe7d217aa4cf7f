/**
 * The full-screen program of the screen figures (14): `less` on a file of numbered lines, in a terminal that says
 * it can draw a full screen (TERM=xterm-256color), as `screen: true` on exec_command would give it. Every driver
 * types the same bytes and knows where less stands: after `n` presses of `j` the last row of text is line n + 23
 * (24 rows, the last one less's prompt).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trackFolder } from './cleanup.mjs';

/** Lines in the file: more than any run presses `j` (warm-up and iterations). */
const LINES = 20_000;
/** Rows of text less shows on a 24-row terminal; the last row is its prompt. */
const TEXT_ROWS = 23;

/** The terminal the pager is told it runs in (what `screen: true` on exec_command sets). */
const PAGER_TERM = 'xterm-256color';

/** A fresh file of LINES lines `line 1`, `line 2`, … in a folder under /var/tmp that cleanupAll removes. */
export function pagerFile() {
  const dir = trackFolder(mkdtempSync('/var/tmp/ue-bench-pager-'));
  const file = join(dir, 'lines.txt');
  writeFileSync(file, Array.from({ length: LINES }, (_, i) => `line ${i + 1}\n`).join(''));
  return file;
}

/** The command line that opens less on `file`, typed into a shell (`exec`: less replaces the shell, for `bash -c`). */
export const pagerCommand = (file, { exec = false } = {}) => `TERM=${PAGER_TERM} ${exec ? 'exec ' : ''}less ${file}`;

/** The last line of text on screen after `presses` presses of `j`. */
const lastLineAfter = (presses) => `line ${presses + TEXT_ROWS}`;

/** Raw terminal output that ends with less's first screen: line 23, then its prompt (the file name). */
// eslint-disable-next-line no-control-regex -- a full-screen program's output is escape sequences
export const FIRST_SCREEN = /line 23\r\n[^\n]*\x1b\[K$/;

/** Raw terminal output that ends with the redraw after a `j`: the new last line, then the prompt `:`. */
export const scrolledTo = (presses) => new RegExp(`${lastLineAfter(presses)}\\r\\n:\\x1b\\[K$`);

/** The reply shows less scrolled to where it should be after `presses`: on its screen, or in its output bytes. */
export function scrolledReply(res, presses) {
  const last = lastLineAfter(presses);
  return res.screen ? res.screen.lines[TEXT_ROWS - 1] === last : res.output.includes(`${last}\r\n`);
}
