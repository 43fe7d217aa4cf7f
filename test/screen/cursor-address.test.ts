import { describe, expect, it } from 'vitest';
import { firstCursorAddress, splitCursorDrawing } from '../../src/screen/cursor-address.js';

/** vim's first screen under TERM=dumb (80x24, three rows of `~` here), as a session recorded it. */
const VIM_DUMB =
  '\f\x1b[24;1H"notes.txt" [New]\x1b[2;1H~' +
  ' '.repeat(79) +
  '\x1b[3;1H~' +
  ' '.repeat(79) +
  '\x1b[24;63H0,0-1\x1b[24;77HAll\x1b[1;1H';

describe('firstCursorAddress: a program drawing a screen', () => {
  it.each([
    ['vim under TERM=dumb (a clear, then ESC [ row ; col H for each row)', VIM_DUMB, 1],
    ['a row alone (ESC [ row H)', 'ab\x1b[5H', 2],
    ['the position written with f (HVP)', '\x1b[3;10fx', 0],
    ['a row without a column (VPA, ESC [ row d)', 'x\x1b[12d', 1],
    ['home given as a row and column', '\x1b[1;1H\x1b[2Jtop - 10:00:00', 0],
  ])('sees %s', (_name, text, at) => {
    expect(firstCursorAddress(text)).toBe(at);
  });
});

describe('firstCursorAddress: line output, which stays raw text', () => {
  it.each([
    ['a bash session', '$ echo hi\r\nhi\r\n$ '],
    ['the python REPL', '>>> print(6*7)\r\n42\r\n>>> '],
    [
      'a build log in colour (gcc, cargo)',
      '\x1b[01m\x1b[Ka.c:3:5:\x1b[m\x1b[K \x1b[01;35m\x1b[Kwarning: \x1b[m\x1b[Kunused variable\r\n' +
        '\x1b[1m\x1b[32m   Compiling\x1b[0m demo v0.1.0\r\n\x1b[0m\x1b[1m\x1b[32m    Finished\x1b[0m dev\r\n',
    ],
    ['ls --color', '\x1b[0m\x1b[01;34mdocs\x1b[0m  \x1b[01;32mrun.sh\x1b[0m\r\n'],
    ["the node REPL's prompt, redrawn in its row (ESC [ 1 G, ESC [ 0 J)", '42\r\n\x1b[1G\x1b[0J> \x1b[3G'],
    ['a progress bar redrawn with CR and erase-in-line', '\r 10%\x1b[K\r 50%\x1b[K\r100%\x1b[K\r\n'],
    ['a progress display that moves up its own lines', 'a 1/2\r\nb 1/2\r\n\x1b[2A\x1b[2Ka 2/2\r\n\x1b[2Kb 2/2\r\n'],
    ['clear before a log (home with no row, erase display)', '\x1b[H\x1b[2J\x1b[3Jbuild started\r\n'],
    ['readline moving within the line', 'abc\x1b[C\x1b[D\x1b[1P'],
  ])('does not take %s for drawing', (_name, text) => {
    expect(firstCursorAddress(text)).toBe(-1);
  });
});

describe('splitCursorDrawing', () => {
  it('leaves the whole drawing to the screen, and the clear before it too', () => {
    expect(splitCursorDrawing(VIM_DUMB, 24)).toEqual({ drawn: true, text: '' });
  });

  it('keeps what was printed before the drawing began', () => {
    expect(splitCursorDrawing(`$ vim notes.txt\r\n${VIM_DUMB}`, 24)).toEqual({
      drawn: true,
      text: '$ vim notes.txt\r\n',
    });
  });

  it('keeps text with no cursor address whole, and says it drew nothing', () => {
    expect(splitCursorDrawing('$ ls\r\na b\r\n$ ', 24)).toEqual({ drawn: false, text: '$ ls\r\na b\r\n$ ' });
  });

  it('takes a cursor address followed by a screen of lines for line output, and keeps it all', () => {
    const log = `\x1b[5;1Hstatus\r\n${'line\r\n'.repeat(24)}`;
    expect(splitCursorDrawing(log, 24)).toEqual({ drawn: false, text: log });
    expect(splitCursorDrawing(`\x1b[5;1H${'line\r\n'.repeat(23)}`, 24).drawn).toBe(true);
  });
});
