/**
 * A program that draws a screen moves the cursor to the rows and columns it draws at; a program that prints lines
 * does not. vim under TERM=dumb draws its whole screen this way without entering the alternate screen
 * (`\f ESC [ 24 ; 1 H "notes.txt" [New] ESC [ 2 ; 1 H ~ …`), and so does procps top.
 *
 * What counts as addressing the cursor: a cursor position that names a row, `ESC [ row ; col H` or `ESC [ row H`
 * (CUP, also with `f`: HVP), or a row alone, `ESC [ row d` (VPA). What does not: the home position with no row
 * (`ESC [ H`, which `clear` prints before a log), erasing (`ESC [ 2 J`, `ESC [ K`), and moves relative to the cursor
 * or within its row (`ESC [ A`, `ESC [ 1 G`): line editors (readline, the node REPL's prompt) and progress bars
 * (`\r`, `ESC [ 1 A ESC [ 2 K`) redraw a line or two in place, and what they print is still lines. Colours
 * (`ESC [ 31 m`) are text attributes.
 */
// eslint-disable-next-line no-control-regex -- terminal sequences begin with ESC
const CURSOR_ADDRESS = /\x1b\[\d+(?:;\d*)?[Hf]|\x1b\[\d+d/;
/** Escape sequences and control characters that show nothing: what is left once they go is what a person reads. */
// eslint-disable-next-line no-control-regex -- they are made of control characters
const INVISIBLE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-B]|[=>78])|[\x00-\x08\x0b-\x1f]/g;
/** One of them, matched only where it is told to start. */
const INVISIBLE_AT = new RegExp(INVISIBLE.source, 'y');

/** Where `text` first addresses the cursor (see above), or -1. Pure. */
export function firstCursorAddress(text: string): number {
  return text.search(CURSOR_ADDRESS);
}

/**
 * Whether `text` (a reply's output) draws a screen by addressing the cursor, and the text without the drawing: the
 * text before the first cursor address and the controls right before it (vim's clear, `\f`), or nothing when what is
 * left holds only controls. The rest is on the screen. It is not a drawing when the rest holds as many line feeds as the screen (of
 * `rows` rows) has rows: lines may have scrolled past the screen's top, and a program that prints that many lines
 * after a cursor address prints lines; the text stays whole rather than lose them. Pure.
 */
export function splitCursorDrawing(text: string, rows: number): { drawn: boolean; text: string } {
  const at = firstCursorAddress(text);
  if (at < 0) return { drawn: false, text };
  let lineFeeds = 0;
  for (let i = text.indexOf('\n', at); i >= 0 && lineFeeds < rows; i = text.indexOf('\n', i + 1)) lineFeeds++;
  if (lineFeeds >= rows) return { drawn: false, text };
  const before = text.slice(0, at);
  const { trailingStart, visible } = scanControls(before);
  return { drawn: true, text: visible ? before.slice(0, trailingStart) : '' };
}

const ESC = 0x1b;
/** A run of controls other than ESC, tab and line feed: they show nothing. */
// eslint-disable-next-line no-control-regex -- they are made of control characters
const CONTROL_RUN = /[\x00-\x08\x0b-\x1a\x1c-\x1f]+/y;
/** A run of what shows or spaces: characters, spaces, tabs, line feeds. */
// eslint-disable-next-line no-control-regex -- it ends at a control character
const SHOWN_RUN = /[^\x00-\x08\x0b-\x1f]+/y;

/**
 * One pass over `text`, a run at a time (native regex scans; a regex for the sequence where an escape begins):
 * where the run of invisible controls that ends it begins, and whether anything but whitespace shows before. A regex
 * anchored with `$` was tried again from every control of a long run (80 kB of them took seconds), one more
 * replaced each control of 1 MiB of them one by one, and a loop a character at a time held the event loop for
 * 1 MiB of them.
 */
function scanControls(text: string): { trailingStart: number; visible: boolean } {
  let trailingStart = 0;
  let visible = false;
  for (let at = 0; at < text.length;) {
    const run = text.charCodeAt(at) === ESC ? INVISIBLE_AT : startsShown(text, at) ? SHOWN_RUN : CONTROL_RUN;
    run.lastIndex = at;
    run.test(text); // a sequence, or the lone ESC: a control either way
    const end = Math.max(run.lastIndex, at + 1);
    if (run === SHOWN_RUN) {
      trailingStart = end;
      if (!visible) visible = /\S/.test(text.slice(at, end));
    }
    at = end;
  }
  return { trailingStart, visible };
}

function startsShown(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0x20 || code === 0x09 || code === 0x0a;
}
