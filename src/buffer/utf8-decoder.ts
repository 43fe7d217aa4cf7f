import { isAscii } from 'node:buffer';
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
  /** The decoder may hold the first bytes of a character: the last byte it was given was not ASCII. */
  private holding = false;

  /**
   * Decodes `bytes`, holding an incomplete trailing sequence until the next write or end(). ASCII with nothing held
   * is its own text, read natively at memory speed (the streaming decoder took ~10 ms a MiB, in one go).
   */
  write(bytes: Uint8Array): string {
    if (bytes.length === 0) return '';
    if (!this.holding && isAscii(bytes))
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
    this.holding = bytes[bytes.length - 1]! >= 0x80; // an ASCII byte ends any character before it
    return this.decoder.decode(bytes, { stream: true });
  }

  /** Flushes any held incomplete sequence as U+FFFD and resets, so the next write starts a fresh stream. */
  end(): string {
    this.holding = false;
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
