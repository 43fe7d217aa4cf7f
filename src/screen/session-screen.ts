import { TerminalModes } from './terminal-modes.js';
import { RecentBytes } from './recent-bytes.js';
import { Screen, type ScreenSnapshot } from './screen.js';

/** The latest output a session keeps for its screen and its watchers, read by the model or not. */
export const RECENT_OUTPUT_BYTES = 64 * 1024;
/**
 * Output fed to the live emulator since the screen was last read, past which the emulator is dropped (and the screen
 * rebuilt from the history when next asked for): a full-screen program that floods must not slow its session down to
 * parsing speed. The parser never falls behind by much (it shares the event loop with the reads, which it starves),
 * so what is measured is what nobody has looked at.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;
const ENTER_ALTERNATE_SCREEN = '\x1b[?1049h';

/**
 * A session's screen, kept lazily. The session follows its terminal modes and keeps its latest output anyway
 * (`modes`, `history`: both cheap). Only while a full-screen program is in the alternate screen does a terminal
 * emulator parse the output as it comes, since its picture depends on every redraw since it began; at any other
 * time, or after a flood dropped the emulator, a snapshot replays the history into a fresh one.
 */
export class SessionScreen {
  /** The emulator kept up to date while in the alternate screen. */
  private live: Screen | undefined;
  /** Bytes fed to `live` since the screen was last read. */
  private unread = 0;

  constructor(
    private cols: number,
    private rows: number,
    /** The session's latest output, pushed to before each write() here. */
    private readonly history: RecentBytes,
    /** The session's modes, fed each chunk before write() here. */
    private readonly modes: TerminalModes,
  ) {}

  get size(): { cols: number; rows: number } {
    return { cols: this.cols, rows: this.rows };
  }

  /** The next chunk of the session's output, once it is in the history; `entered`: it switched to the alternate screen. */
  write(chunk: Buffer, entered: boolean): void {
    if (this.live) {
      this.unread += chunk.length;
      if (this.unread > MAX_UNREAD_BYTES) this.drop();
      else this.live.write(Buffer.from(chunk)); // the emulator parses later: a copy, as the chunk may be a view
    } else if (entered) {
      this.live = this.replay(); // the history already holds this chunk
    }
    if (this.live && !this.modes.alternate) this.drop();
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.live?.resize(cols, rows);
  }

  /** What the terminal shows once all output written so far is parsed. */
  async snapshot(): Promise<ScreenSnapshot> {
    this.unread = 0;
    if (this.live) return this.live.snapshot();
    const screen = this.replay();
    // In the alternate screen it stays, fed from now on; anywhere else it was only needed for this picture.
    if (this.modes.alternate) this.live = screen;
    try {
      return await screen.snapshot();
    } finally {
      if (screen !== this.live) screen.dispose();
    }
  }

  dispose(): void {
    this.drop();
  }

  private replay(): Screen {
    const screen = new Screen(this.cols, this.rows);
    const bytes = this.history.bytes();
    // The switch in may be older than the history kept: then say it first.
    if (this.modes.alternate && !new TerminalModes().feed(bytes)) screen.write(ENTER_ALTERNATE_SCREEN);
    screen.write(bytes);
    return screen;
  }

  private drop(): void {
    this.live?.dispose();
    this.live = undefined;
  }
}
