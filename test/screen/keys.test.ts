import { describe, expect, it } from 'vitest';
import { KEY_NAMES, keyBytes } from '../../src/screen/keys.js';

const normal = { applicationCursorKeys: false };
const app = { applicationCursorKeys: true };

describe('keyBytes', () => {
  it('refuses a name longer than any key at once, naming only its start (10 MiB of `Alt-` overflowed the stack)', () => {
    const start = performance.now();
    expect(() => keyBytes(`${'Alt-'.repeat(2_500_000)}x`, { applicationCursorKeys: false })).toThrow(
      /^unknown key "(Alt-){16}…"/,
    );
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(keyBytes('Alt-Alt-x', { applicationCursorKeys: false })).toBe('\x1b\x1bx');
  });

  it('sends cursor keys as a shell expects them, or in application mode as full-screen programs ask', () => {
    expect(keyBytes('Up', normal)).toBe('\x1b[A');
    expect(keyBytes('Up', app)).toBe('\x1bOA');
    expect(['Down', 'Right', 'Left', 'Home', 'End'].map((k) => keyBytes(k, app))).toEqual([
      '\x1bOB',
      '\x1bOC',
      '\x1bOD',
      '\x1bOH',
      '\x1bOF',
    ]);
    expect(keyBytes('home', normal)).toBe('\x1b[H');
  });

  it('sends editing and function keys as an xterm does, in either mode', () => {
    for (const modes of [normal, app]) {
      expect(keyBytes('PageDown', modes)).toBe('\x1b[6~');
      expect(keyBytes('Delete', modes)).toBe('\x1b[3~');
      expect(keyBytes('F1', modes)).toBe('\x1bOP');
      expect(keyBytes('F12', modes)).toBe('\x1b[24~');
    }
    expect(keyBytes('Esc', normal)).toBe('\x1b');
    expect(keyBytes('Escape', normal)).toBe('\x1b');
    expect(keyBytes('Enter', normal)).toBe('\r');
    expect(keyBytes('Backspace', normal)).toBe('\x7f');
  });

  it('sends Ctrl and Alt with a character', () => {
    expect(keyBytes('Ctrl-C', normal)).toBe('\x03');
    expect(keyBytes('C-c', normal)).toBe('\x03');
    expect(keyBytes('ctrl-d', normal)).toBe('\x04');
    expect(keyBytes('Ctrl-[', normal)).toBe('\x1b');
    expect(keyBytes('Ctrl-@', normal)).toBe('\x00');
    expect(keyBytes('Ctrl-?', normal)).toBe('\x7f');
    expect(keyBytes('Alt-x', normal)).toBe('\x1bx');
    expect(keyBytes('M-b', normal)).toBe('\x1bb');
    expect(keyBytes('Alt-Left', normal)).toBe('\x1b\x1b[D');
  });

  it('knows every name it lists', () => {
    for (const name of KEY_NAMES) expect(keyBytes(name, normal).length).toBeGreaterThan(0);
  });

  it('refuses an unknown name and says which it knows', () => {
    expect(() => keyBytes('Hyper-x', normal)).toThrow(/unknown key "Hyper-x": use one of Up, Down/);
    expect(() => keyBytes('Ctrl-1', normal)).toThrow(/unknown key "Ctrl-1"/);
    expect(() => keyBytes('F13', normal)).toThrow(/unknown key/);
  });
});
