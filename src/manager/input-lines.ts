import { CANONICAL_LINE_MAX_BYTES } from './constants.js';

/** Byte length of the longest line in `chars` (lines end at \n or \r, as a terminal's line discipline sees them). */
function longestLineBytes(chars: string): number {
  let longest = 0;
  for (const line of chars.split(/[\r\n]/)) longest = Math.max(longest, Buffer.byteLength(line, 'utf8'));
  return longest;
}

/** The warning for input the kernel will cut, or undefined. Pure: the caller says whether the terminal is canonical. */
export function canonicalLineWarning(chars: string, canonical: boolean | undefined): string | undefined {
  if (!canonical) return undefined;
  const longest = longestLineBytes(chars);
  if (longest <= CANONICAL_LINE_MAX_BYTES) return undefined;
  return `Warning: a line of ${longest} bytes was written to a terminal in canonical mode; the kernel keeps only the first ${CANONICAL_LINE_MAX_BYTES} bytes of a line, so the program received it cut. Write long input to a file and pass the file instead`;
}

/**
 * Whether writing `chars` wakes a program blocked reading the terminal. In canonical mode the kernel holds a partial
 * line back: only a line's end, EOF or a character that sends a signal (^C, ^\, ^Z) reaches the reader.
 */
export function wakesReader(chars: string, canonical: boolean | undefined): boolean {
  if (chars === '') return false;
  if (!canonical) return true;
  for (const ch of READER_WAKING) if (chars.includes(ch)) return true;
  return false;
}

/** A line's ends, EOF (^D) and the characters that send a signal (^C, ^Z, ^\). */
const READER_WAKING = ['\n', '\r', '\u0004', '\u0003', '\u001a', '\u001c'];

/**
 * Whether canonicalLineWarning and wakesReader can answer differently for `chars` in canonical mode and out of it:
 * when they cannot, the caller need not read the terminal's mode (a tcgetattr in every round trip). Input too short for
 * any line of it to be cut, holding a character that wakes any reader, gets the same answers in both modes; so does
 * no input.
 */
export function modeMatters(chars: string): boolean {
  if (chars === '') return false;
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
  if (chars.length * 3 > CANONICAL_LINE_MAX_BYTES) return true;
  for (const ch of READER_WAKING) if (chars.includes(ch)) return false;
  return true;
}
