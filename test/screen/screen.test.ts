import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import fc from 'fast-check';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { Screen } from '../../src/screen/screen.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import type { ExecProcess } from '../../src/spawn/types.js';

const screens: Screen[] = [];
const newScreen = (cols = 20, rows = 5) => {
  const screen = new Screen(cols, rows);
  screens.push(screen);
  return screen;
};
afterEach(() => screens.splice(0).forEach((s) => s.dispose()));

describe('Screen on controls whose work grows with their count', () => {
  it('fills the screen for a repeat far past its cells, at once', async () => {
    const screen = newScreen(10, 3);
    const start = performance.now();
    screen.write('\x1b[?1049ha\x1b[30000000b');
    const shot = await screen.snapshot();
    expect(performance.now() - start).toBeLessThan(1_000); // seconds before the clamp
    // Clamped to the screen's 30 cells, after the first `a`: full rows that scrolled, and 1 on the last row, as on a
    // real terminal (30 000 001 characters are 1 past a multiple of 10).
    expect(shot.lines).toEqual(['aaaaaaaaaa', 'aaaaaaaaaa', 'a']);
  });

  it('keeps a repeat within a row exact', async () => {
    const screen = newScreen(10, 3);
    screen.write('ab\x1b[3bc');
    expect((await screen.snapshot()).lines[0]).toBe('abbbbc');
  });

  it.each([
    ['scrolling up', 'S'],
    ['scrolling down', 'T'],
    ['inserting lines', 'L'],
    ['deleting lines', 'M'],
  ])('clears the screen when %s far past its rows', async (_, final) => {
    const screen = newScreen(10, 3);
    screen.write(`one\r\ntwo\r\nthree\x1b[H\x1b[2000000000${final}`);
    expect((await screen.snapshot()).lines).toEqual(['', '', '']);
  });

  it('moves by tab stops no further than the edge', async () => {
    const screen = newScreen(20, 2);
    screen.write('\x1b[2000000000I|\r\n\x1b[2000000000Z|');
    expect((await screen.snapshot()).lines).toEqual([`${' '.repeat(19)}|`, '|']);
  });
  it('repeats a character as xterm itself does, on generated output', async () => {
    // Counts within the screen's cells, so only the screen's own repeat differs from plain xterm's.
    const piece = fc.oneof(
      fc.constantFrom('a', 'é', '世', 'e\u0301', '😀', '\r\n', '\x1b[?7l', '\x1b[?7h', '\x1b[4h', '\x1b[4l'),
      fc.constantFrom('\x1b[2;3r', '\x1b[r', '\x1b[H', '\x1b[31m', '\x1b[3;5H', '\x1b[b', '\x1b[?1049h', '\x1b[6n'),
      fc.integer({ min: 0, max: 8 * 4 }).map((count) => `\x1b[${count}b`),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 30 }), async (pieces) => {
        const output = pieces.join('');
        const screen = newScreen(8, 4);
        screen.write(output);
        const plain = new xterm.Terminal({ cols: 8, rows: 4, scrollback: 0, allowProposedApi: true });
        await new Promise<void>((resolve) => plain.write(output, resolve));
        const buffer = plain.buffer.active;
        const lines = Array.from({ length: 4 }, (_, row) => buffer.getLine(row)?.translateToString(true) ?? '');
        const shot = await screen.snapshot();
        plain.dispose();
        expect({ lines: shot.lines, cursor: shot.cursor }).toEqual({
          lines,
          cursor: { row: buffer.cursorY, col: buffer.cursorX },
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('Screen on written bytes', () => {
  it('shows the text and the cursor of the normal screen', async () => {
    const screen = newScreen();
    screen.write('$ echo hi\r\nhi\r\n$ ');
    const shot = await screen.snapshot();
    expect(shot.lines).toEqual(['$ echo hi', 'hi', '$ ', '', '']); // a space the program wrote stays
    expect(shot.cursor).toEqual({ row: 2, col: 2 });
    expect(shot.alternate).toBe(false);
    expect(shot).toMatchObject({ cols: 20, rows: 5, applicationCursorKeys: false });
  });

  it('keeps only the visible rows once output scrolls', async () => {
    const screen = newScreen(10, 3);
    screen.write(Array.from({ length: 50 }, (_, i) => `line${i}`).join('\r\n'));
    expect((await screen.snapshot()).lines).toEqual(['line47', 'line48', 'line49']);
  });

  it('renders a full-screen redraw, and knows the alternate screen and application cursor keys', async () => {
    const screen = newScreen();
    screen.write('before\r\n');
    // What vim sends, in short: alternate screen, cursor keys in application mode, clear, text at positions.
    screen.write('\x1b[?1049h\x1b[?1h\x1b[H\x1b[2Jfirst\x1b[3;5Hthird\x1b[5;1H-- INSERT --\x1b[1;3H');
    const shot = await screen.snapshot();
    expect(shot.lines).toEqual(['first', '', '    third', '', '-- INSERT --']);
    expect(shot.cursor).toEqual({ row: 0, col: 2 });
    expect(shot.alternate).toBe(true);
    expect(shot.applicationCursorKeys).toBe(true);
    // Leaving it shows the normal screen as it was.
    screen.write('\x1b[?1l\x1b[?1049l');
    const after = await screen.snapshot();
    expect(after.lines[0]).toBe('before');
    expect(after).toMatchObject({ alternate: false, applicationCursorKeys: false });
  });

  it('puts back a UTF-8 character split between two writes, and a wide one', async () => {
    const screen = newScreen();
    const bytes = Buffer.from('é€漢x', 'utf8');
    screen.write(bytes.subarray(0, 1));
    screen.write(bytes.subarray(1, 4));
    screen.write(bytes.subarray(4));
    expect((await screen.snapshot()).lines[0]).toBe('é€漢x');
  });

  it('resizes', async () => {
    const screen = newScreen();
    screen.resize(40, 10);
    const shot = await screen.snapshot();
    expect(shot).toMatchObject({ cols: 40, rows: 10 });
    expect(shot.lines).toHaveLength(10);
  });
});

describe('Screen on a real full-screen program', () => {
  let proc: ExecProcess | undefined;
  afterEach(async () => {
    await proc?.terminate();
    proc = undefined;
  });

  it('shows what less displays, as a person would see it', async () => {
    const file = join(tmpdir(), `ue-screen-${process.pid}.txt`);
    onTestFinished(() => rmSync(file, { force: true }));
    writeFileSync(file, Array.from({ length: 100 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
    const screen = newScreen(80, 24);
    proc = await new LocalExecutor({ watchdog: false }).spawn({
      argv: ['less', file],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', HOME: tmpdir(), LESS: '' },
      tty: true,
      cols: 80,
      rows: 24,
    });
    proc.onData((chunk) => screen.write(chunk));
    const deadline = Date.now() + 20_000;
    let shot = await screen.snapshot();
    while (!shot.lines.includes('row 23') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shot = await screen.snapshot();
    }
    expect(shot.alternate).toBe(true);
    expect(shot.lines.slice(0, 23)).toEqual(Array.from({ length: 23 }, (_, i) => `row ${i + 1}`));
    expect(shot.lines[23]).toContain(file.slice(-10)); // less's prompt line names the file
    // A page down shows the next page.
    await proc.write(' ');
    while (!shot.lines.includes('row 46') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      shot = await screen.snapshot();
    }
    expect(shot.lines[0]).toBe('row 24');
  });
});
