import { createRequire } from 'node:module';
import type xterm from '@xterm/headless';

type Terminal = InstanceType<typeof xterm.Terminal>;

/** The emulator's module, loaded with the first screen: a server whose sessions have no terminal never pays for it. */
let emulator: typeof xterm | undefined;
const loadEmulator = () => (emulator ??= createRequire(import.meta.url)('@xterm/headless') as typeof xterm);

/** What a person would see on a terminal now: its rows of text, where the cursor is, and the modes that matter. */
export interface ScreenSnapshot {
  cols: number;
  rows: number;
  /** Each row's text up to its last written cell (a space the program wrote stays); a wide character counts once. */
  lines: string[];
  /** Zero-based. */
  cursor: { row: number; col: number };
  /** The program switched to the alternate screen (vim, less, top, htop, man, a TUI): a full-screen program. */
  alternate: boolean;
  /** Cursor keys send `ESC O A` instead of `ESC [ A` (DECCKM), as full-screen programs ask for. */
  applicationCursorKeys: boolean;
}

/**
 * The emulator parses each write whole before the event loop runs again, and yields between writes once it has
 * parsed for ~12 ms; a control such as a full reset costs a whole screen's work for two bytes, so writes are cut to
 * this size and a flood of them cannot hold the loop for long.
 */
const WRITE_SLICE_BYTES = 256;
/** How long repeats (REP) may print in one event-loop turn before the next waits for another (see repeatPrevious). */
const REPEAT_MS_PER_TURN = 4;

/**
 * Controls whose work grows with their count (xterm loops once per line, tab stop or character), with the count past
 * which the screen cannot change more: inserting, deleting or scrolling lines (IL, DL, SU, SD) past the screen's rows
 * clears it just the same, moving by tab stops (CHT, CBT) stops at its edge, and repeating the previous character
 * (REP) past its cells only scrolls it again. `\e[30000000b` took xterm seconds, `\e[2000000000S` hours.
 */
const COUNTED_CONTROLS: readonly { final: string; limit: (cols: number, rows: number) => number }[] = [
  ...['L', 'M', 'S', 'T'].map((final) => ({ final, limit: (_cols: number, rows: number) => rows })),
  ...['I', 'Z'].map((final) => ({ final, limit: (cols: number) => cols })),
  { final: 'b', limit: (cols: number, rows: number) => cols * rows },
];

/** xterm's own parser hook, which hands its handlers the parameters themselves rather than a copy. */
interface CoreParserHook {
  registerCsiHandler(
    id: { final: string },
    handler: (params: { length: number; params: Int32Array }) => boolean | Promise<boolean>,
  ): unknown;
  _inputHandler?: Partial<CoreInputHandler>;
}

/** What xterm's own REP handler reads and calls (xterm 6): the previous character's state, the cursor, print. */
interface CoreInputHandler {
  _parser: { precedingJoinState: number };
  _activeBuffer: {
    x: number;
    y: number;
    ybase: number;
    lines: { get(index: number): { getString(x: number): string } | undefined };
  };
  print(data: Uint32Array, start: number, end: number): void;
}

/**
 * A terminal emulator with no display (@xterm/headless), fed the same bytes as a session's output buffer, that can
 * say what is on screen. It keeps no scrollback: only the visible rows, so its memory does not grow with output.
 */
export class Screen {
  private readonly terminal: Terminal;
  /** Writes not yet parsed. */
  private pending = 0;
  /** The code points a repeated character is printed from, kept for the next repeat (see repeatPrevious). */
  private repeated = new Uint32Array(0);
  /** When repeats began printing in this event-loop turn (see repeatPrevious); undefined between turns. */
  private repeatingSince: number | undefined;
  private disposed = false;

  constructor(cols: number, rows: number) {
    this.terminal = new (loadEmulator().Terminal)({ cols, rows, scrollback: 0, allowProposedApi: true });
    this.boundCountedControls();
  }

  /** Output of the program, in the order it came; a UTF-8 character may be split across writes. */
  write(data: Uint8Array | string): void {
    if (typeof data === 'string' || data.length <= WRITE_SLICE_BYTES) return this.writeSlice(data);
    for (let at = 0; at < data.length; at += WRITE_SLICE_BYTES)
      this.writeSlice(data.subarray(at, at + WRITE_SLICE_BYTES));
  }

  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
  }

  /** The screen once everything written so far is parsed (xterm parses in the background, in batches). */
  async snapshot(): Promise<ScreenSnapshot> {
    // xterm parses in a timer even when nothing waits: ask it only when something does (saves ~1 ms).
    if (this.pending > 0) await new Promise<void>((resolve) => this.terminal.write('', resolve));
    const { cols, rows } = this.terminal;
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < rows; row++)
      lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '');
    return {
      cols,
      rows,
      lines,
      cursor: { row: buffer.cursorY, col: buffer.cursorX },
      alternate: buffer.type === 'alternate',
      applicationCursorKeys: this.terminal.modes.applicationCursorKeysMode,
    };
  }

  dispose(): void {
    this.disposed = true;
    this.terminal.dispose();
  }

  private writeSlice(data: Uint8Array | string): void {
    this.pending++;
    this.terminal.write(data, () => this.pending--);
  }

  /**
   * Clamps the count of each control in COUNTED_CONTROLS to its limit for the current size, before xterm's own
   * handler runs. Through xterm's core hook, whose handlers share the parameters; without it (another xterm), the
   * public hook sees only a copy, and a control over its limit is then ignored instead.
   */
  private boundCountedControls(): void {
    const core = (this.terminal as unknown as { _core?: Partial<CoreParserHook> })._core;
    for (const { final, limit } of COUNTED_CONTROLS) {
      const max = () => limit(this.terminal.cols, this.terminal.rows);
      if (typeof core?.registerCsiHandler === 'function') {
        core.registerCsiHandler({ final }, (params) => {
          if (params.length > 0 && params.params[0]! > max()) params.params[0] = max();
          if (final === 'b' && params.length > 0) return this.repeatPrevious(core, params.params[0] || 1);
          return false; // xterm's handler runs next, with the clamped count
        });
      } else {
        this.terminal.parser.registerCsiHandler({ final }, (params) => {
          const first = params[0];
          return (Array.isArray(first) ? first[0]! : (first ?? 0)) > max();
        });
      }
    }
  }

  /**
   * REP of one UTF-16 unit, as xterm's handler does it (the same print of `count` copies of the previous cell's
   * character), from one array filled at once and kept: xterm's builds a new array of `count` code points with
   * `count` copies each time, and 1 MiB of `a\e[30000000b` made ~670 MB of garbage and long collections. False
   * (xterm's handler runs) for anything else: no previous character, a character of several units, another xterm.
   *
   * A repeat fills up to a whole screen for a few bytes, so xterm's own pause (after ~12 ms of parsing, checked
   * between writes) came after a slice of 20 of them: 10-20 ms late. Once repeats have printed for
   * REPEAT_MS_PER_TURN in one turn, the next one waits for the next turn (xterm's parser waits for a handler's
   * promise), so other sessions and clients get the loop in between.
   */
  private repeatPrevious(core: Partial<CoreParserHook>, count: number): boolean | Promise<boolean> {
    const now = performance.now();
    if (this.repeatingSince === undefined) {
      this.repeatingSince = now;
      setImmediate(() => (this.repeatingSince = undefined));
    } else if (now - this.repeatingSince > REPEAT_MS_PER_TURN) {
      return new Promise((resolve) => setImmediate(() => resolve(this.disposed || this.repeatPrevious(core, count))));
    }
    return this.printRepeat(core, count);
  }

  private printRepeat(core: Partial<CoreParserHook>, count: number): boolean {
    const handler = core._inputHandler;
    const state = handler?._parser?.precedingJoinState;
    const buffer = handler?._activeBuffer;
    if (!state || !buffer || typeof handler.print !== 'function') return false;
    const width = (state >> 1) & 3; // xterm's UnicodeService.extractWidth
    const text = buffer.lines.get(buffer.ybase + buffer.y)?.getString(buffer.x - width);
    if (text?.length !== 1) return false;
    if (this.repeated.length < count) this.repeated = new Uint32Array(count);
    this.repeated.fill(text.charCodeAt(0), 0, count);
    handler.print(this.repeated, 0, count);
    return true;
  }
}
