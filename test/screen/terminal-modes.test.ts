import { describe, expect, it } from 'vitest';
import { TerminalModes, outsideAlternateScreen } from '../../src/screen/terminal-modes.js';

const ENTER = '\x1b[?1049h';
const LEAVE = '\x1b[?1049l';

describe('outsideAlternateScreen', () => {
  it('keeps text that never enters the alternate screen', () => {
    expect(outsideAlternateScreen('a\r\nb\x1b[1;1H', false)).toBe('a\r\nb\x1b[1;1H');
  });

  it('leaves out what was drawn from the switch in to the switch out, both included', () => {
    expect(outsideAlternateScreen(`$ vim\r\n${ENTER}\x1b[Hdrawn${LEAVE}$ `, false)).toBe('$ vim\r\n$ ');
  });

  it('leaves out everything after a switch in that was not left', () => {
    expect(outsideAlternateScreen(`before${ENTER}drawn`, false)).toBe('before');
  });

  it('leaves out the start of a text that began in the alternate screen', () => {
    expect(outsideAlternateScreen(`drawn${LEAVE}after`, true)).toBe('after');
    expect(outsideAlternateScreen('all drawn', true)).toBe('');
  });

  it('knows 1047 and 47 too, and several visits', () => {
    expect(outsideAlternateScreen('a\x1b[?1047hX\x1b[?1047lb\x1b[?47hY\x1b[?47lc', false)).toBe('abc');
  });

  it('takes a second switch in, while inside, as nothing new', () => {
    expect(outsideAlternateScreen(`a${ENTER}x${ENTER}y${LEAVE}b`, false)).toBe('ab');
  });
});

describe('TerminalModes', () => {
  const feed = (tracker: TerminalModes, text: string) => tracker.feed(Buffer.from(text, 'latin1'));

  it('follows switches in and out, and says when a chunk switched in', () => {
    const tracker = new TerminalModes();
    expect(feed(tracker, 'plain output\r\n')).toBe(false);
    expect(feed(tracker, `x${ENTER}drawing`)).toBe(true);
    expect(tracker.alternate).toBe(true);
    expect(feed(tracker, 'more drawing')).toBe(false);
    expect(feed(tracker, `${LEAVE}$ `)).toBe(false);
    expect(tracker.alternate).toBe(false);
  });

  it('reports a switch in that the same chunk leaves again', () => {
    const tracker = new TerminalModes();
    expect(feed(tracker, `${ENTER}x${LEAVE}`)).toBe(true);
    expect(tracker.alternate).toBe(false);
  });

  it('sees a switch split across chunks at every byte', () => {
    for (let cut = 1; cut < ENTER.length; cut++) {
      const tracker = new TerminalModes();
      expect(feed(tracker, `abc${ENTER.slice(0, cut)}`)).toBe(false);
      expect(feed(tracker, `${ENTER.slice(cut)}def`)).toBe(true);
      expect(tracker.alternate).toBe(true);
    }
  });

  it('follows application cursor keys, and no other private mode', () => {
    const tracker = new TerminalModes();
    expect(feed(tracker, '\x1b[?1h\x1b[?2004h\x1b[?25l\x1b[?10495h\x1b[?12h')).toBe(false);
    expect(tracker).toMatchObject({ alternate: false, applicationCursorKeys: true });
    feed(tracker, '\x1b[?');
    feed(tracker, '1l');
    expect(tracker.applicationCursorKeys).toBe(false);
  });
});

describe('outsideAlternateScreen around a full-screen program', () => {
  it('drops what is left when it is only terminal modes, nothing a person sees', () => {
    expect(outsideAlternateScreen(`\x1b[?1006;1000h\x1b[?1002h\x1b=${ENTER}drawn`, false)).toBe('');
    expect(outsideAlternateScreen(`drawn${LEAVE}\x1b[?1l\x1b>\r\n`, true)).toBe('');
  });

  it('keeps text around the switches, with its modes', () => {
    expect(outsideAlternateScreen(`\x1b[?1hlog line\r\n${ENTER}drawn`, false)).toBe('\x1b[?1hlog line\r\n');
  });
});
