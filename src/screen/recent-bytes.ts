/** Small chunks (a keystroke's echo) are joined once this many pile up: one Buffer costs ~100 bytes of bookkeeping. */
const MAX_CHUNKS = 32;

/**
 * The latest `limit` bytes of a stream, kept as the chunks that came (no copy per chunk). Memory stays near `limit`
 * whatever the stream's length.
 */
export class RecentBytes {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes have been dropped from the front: the first kept byte may be in the middle of a line or a sequence. */
  private cut = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.cut = true;
      while (this.size - this.chunks[0]!.length >= this.limit) this.size -= this.chunks.shift()!.length;
      this.chunks[0] = this.chunks[0]!.subarray(this.size - this.limit);
      this.size = this.limit;
    }
    if (this.chunks.length > MAX_CHUNKS) this.chunks = [Buffer.concat(this.chunks, this.size)];
  }

  /**
   * The bytes kept, oldest first. Once some were dropped, they start after the first line break, so a replay does
   * not begin inside a line, a UTF-8 character or an escape sequence (unless no line break is kept at all).
   */
  bytes(): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    if (!this.cut) return all;
    const lineEnd = all.indexOf(0x0a);
    return lineEnd < 0 ? all : all.subarray(lineEnd + 1);
  }

  get byteLength(): number {
    return this.size;
  }
}
