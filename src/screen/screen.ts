import xterm from '@xterm/headless';

const { Terminal } = xterm;

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
 * A terminal emulator with no display (@xterm/headless), fed the same bytes as a session's output buffer, that can
 * say what is on screen. It keeps no scrollback: only the visible rows, so its memory does not grow with output.
 */
export class Screen {
  private readonly terminal: InstanceType<typeof Terminal>;
  /** Writes not yet parsed. */
  private pending = 0;

  constructor(cols: number, rows: number) {
    this.terminal = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true });
  }

  /** Output of the program, in the order it came; a UTF-8 character may be split across writes. */
  write(data: Uint8Array | string): void {
    this.pending++;
    this.terminal.write(data, () => this.pending--);
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
    this.terminal.dispose();
  }
}
