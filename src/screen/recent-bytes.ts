import { ByteRing } from '../buffer/byte-ring.js';

/**
 * The latest `limit` bytes of a stream, copied into a ring of its own (see ByteRing): memory stays within `limit`
 * whatever the stream's length, and a caller may reuse a buffer it has pushed.
 */
export class RecentBytes {
  private readonly ring: ByteRing;
  /** Bytes have been dropped from the front: the first kept byte may be in the middle of a line or a sequence. */
  private cut = false;

  constructor(limit: number) {
    this.ring = new ByteRing(limit);
  }

  push(chunk: Uint8Array): void {
    if (this.ring.push(chunk) > 0) this.cut = true;
  }

  /**
   * The bytes kept, oldest first, as a buffer of the caller's own. Once some were dropped, they start after the
   * first line break, so a replay does not begin inside a line, a UTF-8 character or an escape sequence (unless no
   * line break is kept at all).
   */
  bytes(): Buffer {
    const all = this.ring.toBuffer();
    if (!this.cut) return all;
    const lineEnd = all.indexOf(0x0a);
    return lineEnd < 0 ? all : all.subarray(lineEnd + 1);
  }

  get byteLength(): number {
    return this.ring.length;
  }
}
