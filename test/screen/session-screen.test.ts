import { afterEach, describe, expect, it } from 'vitest';
import { RecentBytes } from '../../src/screen/recent-bytes.js';
import { RECENT_OUTPUT_BYTES, SessionScreen } from '../../src/screen/session-screen.js';
import { TerminalModes } from '../../src/screen/terminal-modes.js';

const screens: SessionScreen[] = [];
/** A screen fed as an ExecSession feeds it: the history and the modes first, then the screen. */
function newScreen(cols = 20, rows = 4) {
  const history = new RecentBytes(RECENT_OUTPUT_BYTES);
  const modes = new TerminalModes();
  const screen = new SessionScreen(cols, rows, history, modes);
  screens.push(screen);
  return {
    screen,
    modes,
    write(text: string) {
      const chunk = Buffer.from(text);
      history.push(chunk);
      screen.write(chunk, modes.feed(chunk));
    },
  };
}
afterEach(() => screens.splice(0).forEach((s) => s.dispose()));

describe('SessionScreen', () => {
  it('shows the normal screen from the recent output when asked', async () => {
    const { screen, modes, write } = newScreen();
    for (let i = 0; i < 10; i++) write(`line ${i}\r\n`);
    write('$ ');
    const shot = await screen.snapshot();
    expect(shot.lines).toEqual(['line 7', 'line 8', 'line 9', '$ ']);
    expect(shot.alternate).toBe(false);
    expect(modes.alternate).toBe(false);
  });

  it('keeps a full-screen picture drawn once and then updated for longer than the history holds', async () => {
    const { screen, modes, write } = newScreen();
    write('\x1b[?1049h\x1b[H\x1b[2Jtitle drawn once');
    expect(modes.alternate).toBe(true);
    // 200 KiB of updates to row 3 only: the history has long lost the title, the live emulator has not.
    for (let i = 0; i < 10_000; i++) write(`\x1b[3;1Hcount ${i}`);
    const shot = await screen.snapshot();
    expect(shot.lines[0]).toBe('title drawn once');
    expect(shot.lines[2]).toBe('count 9999');
    expect(shot.alternate).toBe(true);
  });

  it('shows the normal screen again once the program leaves the alternate screen', async () => {
    const { screen, write } = newScreen();
    write('$ less file\r\n');
    write('\x1b[?1049h\x1b[Hpage one');
    expect((await screen.snapshot()).lines[0]).toBe('page one');
    write('\x1b[?1049l$ ');
    const shot = await screen.snapshot();
    expect(shot.alternate).toBe(false);
    expect(shot.lines.slice(0, 2)).toEqual(['$ less file', '$ ']);
  });

  it('drops an emulator fed a flood nobody looked at, and rebuilds the picture from the recent output', async () => {
    const { screen, write } = newScreen();
    write('\x1b[?1049h');
    // 2 MiB with no snapshot in between: past 1 MiB unread the emulator is dropped.
    const frame = (n: number) => `\x1b[H\x1b[2Jframe ${n}${'\x1b[2;1H'.repeat(300)}`; // ~2 KiB each
    for (let n = 0; n < 1000; n++) write(frame(n));
    const shot = await screen.snapshot();
    expect(shot.lines[0]).toBe('frame 999');
    expect(shot.alternate).toBe(true);
  });

  it('follows a resize', async () => {
    const { screen, write } = newScreen(20, 4);
    write('\x1b[?1049hhello');
    screen.resize(30, 6);
    const shot = await screen.snapshot();
    expect(shot).toMatchObject({ cols: 30, rows: 6 });
    expect(shot.lines).toHaveLength(6);
    expect(screen.size).toEqual({ cols: 30, rows: 6 });
  });
});
