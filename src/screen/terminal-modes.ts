/**
 * The sequences that switch a terminal to its alternate screen and back (`h` enters, `l` leaves): xterm's 1049 (which
 * also saves the cursor: vim, less, tmux), 1047 and the older 47.
 */
// eslint-disable-next-line no-control-regex -- terminal sequences begin with ESC
const SWITCH = /\x1b\[\?(?:1049|1047|47)([hl])/g;
const SWITCH_MODES = new Set(['1049', '1047', '47']);
/** DECCKM: `ESC [ ? 1 h` turns application cursor keys on, `l` off. */
const CURSOR_KEYS_MODE = '1';
/** The longest sequence followed, less one byte: how much of a chunk's end may begin one the next chunk ends. */
const CARRY_BYTES = '\x1b[?1049'.length;
/** CSI and OSC sequences and lone escapes (`ESC =`, `ESC >`, `ESC 7`): terminal controls, not text. */
// eslint-disable-next-line no-control-regex -- they are made of control characters
const CONTROL_SEQUENCES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-B]|[=>78])|[\r\x07\x08]/g;
const ESC_BRACKET_QUESTION = Buffer.from('\x1b[?');

/**
 * `text` without what a full-screen program drew in the alternate screen: from each switch into it to the switch
 * out (both included), and to the end when it is still there. `startsInside`: the text begins in the alternate
 * screen. What was drawn there is a picture made of redraws, not a log, and the screen shows it better.
 */
export function outsideAlternateScreen(text: string, startsInside: boolean): string {
  let inside = startsInside;
  let kept = '';
  let from = 0;
  let switched = startsInside;
  for (const match of text.matchAll(SWITCH)) {
    switched = true;
    const enter = match[1] === 'h';
    if (enter && !inside) kept += text.slice(from, match.index);
    if (!enter && inside) from = match.index + match[0].length;
    inside = enter;
  }
  if (!switched) return text;
  kept = inside ? kept : kept + text.slice(from);
  // What such a program prints around its switches is mostly modes (mouse, keypad): nothing a person sees.
  return kept.replace(CONTROL_SEQUENCES, '').trim() === '' ? '' : kept;
}

/** The private modes a session follows: what its bytes at `at` (which begin `ESC [ ?`) set, maybe only begun. */
function modeAt(bytes: Buffer, at: number): { mode: string; on: boolean } | 'partial' | undefined {
  let end = at + ESC_BRACKET_QUESTION.length;
  while (end < bytes.length && bytes[end]! >= 0x30 && bytes[end]! <= 0x39 && end - at < CARRY_BYTES) end++;
  if (end === bytes.length) return 'partial';
  const mode = bytes.toString('latin1', at + ESC_BRACKET_QUESTION.length, end);
  if (mode !== CURSOR_KEYS_MODE && !SWITCH_MODES.has(mode)) return undefined;
  return bytes[end] === 0x68 ? { mode, on: true } : bytes[end] === 0x6c ? { mode, on: false } : undefined; // h, l
}

/**
 * Follows a tty session's output, chunk by chunk, for the two modes that change what it means to read and type: the
 * alternate screen (a full-screen program is running) and application cursor keys (DECCKM: arrows are sent as
 * `ESC O A`, not `ESC [ A`). A sequence split across two chunks counts. Cheap on a flood: a native search for
 * `ESC [ ?`, which ordinary output rarely holds.
 */
export class TerminalModes {
  alternate = false;
  applicationCursorKeys = false;
  private carry: Buffer | undefined;

  /** Follows one more chunk; true when the chunk switched into the alternate screen (it may have left it again). */
  feed(chunk: Buffer): boolean {
    const bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    let entered = false;
    for (let at = bytes.indexOf(ESC_BRACKET_QUESTION); at >= 0; at = bytes.indexOf(ESC_BRACKET_QUESTION, at + 1)) {
      const found = modeAt(bytes, at);
      if (found === 'partial') {
        this.carry = Buffer.from(bytes.subarray(at)); // the next chunk may end it
        return entered;
      }
      if (found === undefined) continue;
      if (found.mode === CURSOR_KEYS_MODE) {
        this.applicationCursorKeys = found.on;
      } else {
        this.alternate = found.on;
        entered ||= found.on;
      }
    }
    // A chunk that ends in `ESC` or `ESC [` may begin one too.
    const last = bytes.length - 1;
    if (bytes[last] === 0x1b) this.carry = Buffer.from([0x1b]);
    else if (bytes[last] === 0x5b && bytes[last - 1] === 0x1b) this.carry = Buffer.from([0x1b, 0x5b]);
    return entered;
  }
}
