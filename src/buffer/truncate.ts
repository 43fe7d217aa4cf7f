/** Bytes per estimated token: a coarse, Codex-compatible ratio. */
export const BYTES_PER_TOKEN = 4;
const NEWLINE = 0x0a;

/** Estimated token count: ceil(UTF-8 bytes / 4). */
export function approxTokenCount(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN);
}

/**
 * Number of lines as Rust's `str::lines()` counts them: a trailing newline does not start a new line. Given the
 * UTF-8 bytes (a newline byte is only ever a newline), a plain loop counts 1 MB in ~1.5 ms, 5× faster than
 * searching the text: it runs on every truncated reply, and 64 sessions ending a flood together truncate at once.
 */
export function countLines(text: string | Uint8Array): number {
  if (text.length === 0) return 0;
  let newlines = 0;
  if (typeof text === 'string') {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines += 1;
    return text.endsWith('\n') ? newlines : newlines + 1;
  }
  for (let i = 0; i < text.length; i++) if (text[i] === NEWLINE) newlines += 1;
  return text[text.length - 1] === NEWLINE ? newlines : newlines + 1;
}

/**
 * The line that stands for the bytes a session's output buffer dropped from the middle, as Codex writes it: between
 * the kept head and tail (each on its own side of a newline), and under the warning of a reply that cut the text.
 */
export function omissionMarker(omittedBytes: number): string {
  return `... ${omittedBytes} bytes omitted ...`;
}

/** What the buffer dropped before the reply was cut, when it dropped anything. */
export interface BufferOmission {
  /** Bytes dropped from the middle; the text carries omissionMarker(omittedBytes) where they were. */
  omittedBytes: number;
  /** ceil(bytes printed / 4), the dropped bytes included: the count the reply's header gives. */
  originalTokenCount: number;
}

export interface TruncationResult {
  text: string;
  truncated: boolean;
  originalTokenCount: number;
}

/**
 * Fits `text` into `maxTokens` estimated tokens by keeping its head and tail.
 *
 * Invariants: text within budget is returned unchanged; otherwise head and tail each hold at most
 * half the byte budget (tail gets the odd byte), are cut on character boundaries, and the marker
 * reports the dropped tokens as ceil(droppedBytes / 4). `omission`: the buffer dropped part of the output already
 * (see truncateOmitted).
 */
export function truncateForModel(text: string, maxTokens: number, omission?: BufferOmission): TruncationResult {
  // NaN or negative budgets degrade to 0 rather than producing NaN markers.
  const tokens = maxTokens > 0 ? Math.floor(maxTokens) : 0;
  const bytes = Buffer.from(text, 'utf8');
  const budget = tokens * BYTES_PER_TOKEN;
  if (omission && omission.omittedBytes > 0) return truncateOmitted(text, bytes, budget, omission);
  const originalTokenCount = Math.ceil(bytes.length / BYTES_PER_TOKEN);
  if (bytes.length <= budget) return { text, truncated: false, originalTokenCount };
  const out =
    `Warning: truncated output (original token count: ${originalTokenCount})\n` +
    `Total output lines: ${countLines(bytes)}\n\n` +
    cutMiddle(bytes, budget);
  return { text: out, truncated: true, originalTokenCount };
}

/**
 * Text whose middle the buffer already dropped (Codex's rule): the count in the warning is the one of everything
 * printed, as in the header, not of the text left; the marker line stands under the warning instead of the line
 * count, unless the cut kept it in place. Text within budget is returned as is (with the marker at the top if it has
 * lost it, a screen having taken it, say).
 */
function truncateOmitted(text: string, bytes: Buffer, budget: number, omission: BufferOmission): TruncationResult {
  const { originalTokenCount } = omission;
  const marker = omissionMarker(omission.omittedBytes);
  if (bytes.length <= budget) {
    return { text: text.includes(marker) ? text : `${marker}\n${text}`, truncated: false, originalTokenCount };
  }
  const cut = cutMiddle(bytes, budget);
  const notice = cut.includes(marker) ? '' : `${marker}\n`;
  const out = `Warning: truncated output (original token count: ${originalTokenCount})\n${notice}\n${cut}`;
  return { text: out, truncated: true, originalTokenCount };
}

/** The first and last budget/2 bytes (the tail gets the odd one) on character boundaries, and what was dropped. */
function cutMiddle(bytes: Buffer, budget: number): string {
  const headBudget = Math.floor(budget / 2);
  const tailBudget = budget - headBudget;
  const headEnd = boundaryAtOrBefore(bytes, headBudget);
  const tailStart = boundaryAtOrAfter(bytes, bytes.length - tailBudget);
  const droppedTokens = Math.ceil((bytes.length - budget) / BYTES_PER_TOKEN);
  return (
    bytes.toString('utf8', 0, headEnd) +
    `\u2026${droppedTokens} tokens truncated\u2026` +
    bytes.toString('utf8', tailStart)
  );
}

// Encoded JS strings are well-formed UTF-8, so any non-continuation byte (not 0b10xxxxxx) starts a character.
function isCharStart(bytes: Buffer, index: number): boolean {
  const byte = bytes[index];
  return byte === undefined || (byte & 0xc0) !== 0x80;
}

/** Largest character boundary <= index: the head never ends inside a character. */
function boundaryAtOrBefore(bytes: Buffer, index: number): number {
  let i = index;
  while (i > 0 && !isCharStart(bytes, i)) i -= 1;
  return i;
}

/** Smallest character boundary >= index: the tail never starts inside a character. */
function boundaryAtOrAfter(bytes: Buffer, index: number): number {
  let i = index;
  while (i < bytes.length && !isCharStart(bytes, i)) i += 1;
  return i;
}
