import { omissionMarker } from './truncate.js';

/**
 * Incremental UTF-8 decoder for byte streams that arrive in arbitrary chunks.
 *
 * Invariants: never throws on malformed input (invalid bytes become U+FFFD), and a multi-byte
 * character split across writes is held back until its remaining bytes arrive.
 */
export class Utf8StreamDecoder {
  // ignoreBOM keeps a U+FEFF in the output: terminal output is a byte stream, and the decoder restarts after end().
  private readonly decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

  /** Decodes `bytes`, holding an incomplete trailing sequence until the next write or end(). */
  write(bytes: Uint8Array): string {
    return this.decoder.decode(bytes, { stream: true });
  }

  /** Flushes any held incomplete sequence as U+FFFD and resets, so the next write starts a fresh stream. */
  end(): string {
    return this.decoder.decode();
  }
}

/**
 * Decodes a drained head/tail pair through a persistent decoder.
 *
 * Contiguous content (nothing omitted) streams straight through, so a character split across two
 * drains still decodes. With a gap, the head is flushed first so a character cut at the gap turns
 * into U+FFFD instead of being glued to unrelated tail bytes, and the gap is marked on a line of its own
 * (omissionMarker), as Codex marks it.
 */
export function decodeDrained(
  decoder: Utf8StreamDecoder,
  drained: { head: Buffer; tail: Buffer; omittedBytes: number },
): string {
  if (drained.omittedBytes === 0) {
    return decoder.write(drained.head) + decoder.write(drained.tail);
  }
  const marker = `\n${omissionMarker(drained.omittedBytes)}\n`;
  return decoder.write(drained.head) + decoder.end() + marker + decoder.write(drained.tail);
}
