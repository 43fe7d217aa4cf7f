/**
 * Keys a model cannot type as text (arrows, Esc, function keys, Ctrl-x), by name, as the bytes an xterm sends for
 * them. Cursor keys depend on the terminal's mode: full-screen programs turn on application cursor keys (DECCKM)
 * and then expect `ESC O A` where a shell expects `ESC [ A`. Pure.
 */

export interface KeyModes {
  /** DECCKM is on (see ScreenSnapshot.applicationCursorKeys). */
  applicationCursorKeys: boolean;
}

const ESC = '\x1b';

/** Keys whose bytes depend on DECCKM: the final letter after `ESC [` (normal) or `ESC O` (application). */
const CURSOR: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };

const FIXED: Record<string, string> = {
  enter: '\r',
  tab: '\t',
  backspace: '\x7f',
  esc: ESC,
  space: ' ',
  insert: `${ESC}[2~`,
  delete: `${ESC}[3~`,
  pageup: `${ESC}[5~`,
  pagedown: `${ESC}[6~`,
  f1: `${ESC}OP`,
  f2: `${ESC}OQ`,
  f3: `${ESC}OR`,
  f4: `${ESC}OS`,
  f5: `${ESC}[15~`,
  f6: `${ESC}[17~`,
  f7: `${ESC}[18~`,
  f8: `${ESC}[19~`,
  f9: `${ESC}[20~`,
  f10: `${ESC}[21~`,
  f11: `${ESC}[23~`,
  f12: `${ESC}[24~`,
};

const ALIASES: Record<string, string> = {
  escape: 'esc',
  return: 'enter',
  del: 'delete',
  ins: 'insert',
  pgup: 'pageup',
  pgdn: 'pagedown',
  bs: 'backspace',
};

/** Every name keyBytes takes (besides Ctrl- and Alt- with a character), for error messages and docs. */
export const KEY_NAMES: readonly string[] = [
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Insert',
  'Delete',
  'Enter',
  'Tab',
  'Backspace',
  'Esc',
  'Space',
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
];

/** Ctrl with a character: a letter or one of @[\]^_ clears bits 5–6 (Ctrl-A = 0x01, Ctrl-[ = ESC); Ctrl-? is DEL. */
function ctrl(char: string): string | undefined {
  if (char === '?') return '\x7f';
  if (char === ' ') return '\x00';
  const code = char.toUpperCase().charCodeAt(0);
  return char.length === 1 && code >= 0x40 && code <= 0x5f ? String.fromCharCode(code & 0x1f) : undefined;
}

/**
 * The bytes for one named key: `Up`, `PageDown`, `F5`, `Esc`, `Ctrl-C` (also `C-c`), `Alt-x` (also `M-x`, sent as
 * ESC then the key). Names are case-insensitive. Throws, listing the names it knows, for any other.
 */
export function keyBytes(name: string, modes: KeyModes): string {
  // Each `Alt-` is read again below: a name of 10 MiB of them cost its square, then overflowed the stack.
  if (name.length > MAX_KEY_NAME_CHARS) throw unknownKey(`${name.slice(0, MAX_KEY_NAME_CHARS)}…`);
  const modifier = /^(ctrl|c|alt|m|meta)-(.+)$/i.exec(name);
  if (modifier) {
    const [, mod = '', rest = ''] = modifier;
    if (/^(alt|m|meta)$/i.test(mod)) return ESC + (rest.length === 1 ? rest : keyBytes(rest, modes));
    const bytes = ctrl(rest);
    if (bytes !== undefined) return bytes;
  } else {
    const key = name.toLowerCase();
    const canonical = ALIASES[key] ?? key;
    const cursor = CURSOR[canonical];
    if (cursor !== undefined) return `${ESC}${modes.applicationCursorKeys ? 'O' : '['}${cursor}`;
    const fixed = FIXED[canonical];
    if (fixed !== undefined) return fixed;
  }
  throw unknownKey(name);
}

/** The longest key name read: real ones (`Alt-Ctrl-PageDown`) are short. */
const MAX_KEY_NAME_CHARS = 64;

function unknownKey(name: string): Error {
  return new Error(
    `unknown key ${JSON.stringify(name)}: use one of ${KEY_NAMES.join(', ')}, Ctrl-<letter or @[\\]^_?>, or Alt-<key>`,
  );
}
