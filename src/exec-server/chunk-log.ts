import type { OutputStream } from './protocol.js';

/** One output chunk as retained: its seq, its stream, its bytes. */
export interface LoggedChunk {
  seq: number;
  stream: OutputStream;
  bytes: Buffer;
}

/**
 * The output of one process kept for `process/read`: the newest whole chunks whose sizes add up to at most
 * `maxBytes`, and at most `maxChunks` of them (the newest chunk is always kept). Pure data structure; seqs only grow.
 */
export class ChunkLog {
  private chunks: LoggedChunk[] = [];
  /** Index of the oldest chunk still kept: dropping is O(1), the array is compacted now and then. */
  private head = 0;
  private retained = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxChunks = Number.POSITIVE_INFINITY,
  ) {}

  /** Bytes kept now. */
  get bytes(): number {
    return this.retained;
  }

  /** Appends `chunk` and drops the oldest chunks until the rest fits in maxBytes and maxChunks again. */
  push(chunk: LoggedChunk): void {
    this.chunks.push(chunk);
    this.retained += chunk.bytes.length;
    while (
      (this.retained > this.maxBytes || this.chunks.length - this.head > this.maxChunks) &&
      this.chunks.length - this.head > 1
    ) {
      this.retained -= this.chunks[this.head]!.bytes.length;
      this.chunks[this.head++] = undefined as unknown as LoggedChunk;
    }
    if (this.head > 1024 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }

  /** Whether a chunk with seq > afterSeq is kept. */
  hasAfter(afterSeq: number): boolean {
    const last = this.chunks[this.chunks.length - 1];
    return this.chunks.length > this.head && last !== undefined && last.seq > afterSeq;
  }

  /**
   * Kept chunks with seq > afterSeq, oldest first, added while their total stays within `maxBytes` (absent: all),
   * but always at least one. `cut` says some were left out for maxBytes.
   */
  after(afterSeq: number, maxBytes?: number): { chunks: LoggedChunk[]; cut: boolean } {
    let start = this.chunks.length;
    while (start > this.head && this.chunks[start - 1]!.seq > afterSeq) start--;
    const out: LoggedChunk[] = [];
    let total = 0;
    for (let i = start; i < this.chunks.length; i++) {
      const chunk = this.chunks[i]!;
      if (maxBytes !== undefined && out.length > 0 && total + chunk.bytes.length > maxBytes) {
        return { chunks: out, cut: true };
      }
      out.push(chunk);
      total += chunk.bytes.length;
    }
    return { chunks: out, cut: false };
  }

  /** Everything kept, decoded as UTF-8 (for telling a sandbox denial from the output). */
  text(): string {
    return Buffer.concat(this.chunks.slice(this.head).map((c) => c.bytes)).toString('utf8');
  }
}
