/** Default byte budget for one session's retained output (1 MiB). */
export const OUTPUT_MAX_BYTES = 1024 * 1024;

// Compacting the tail array only once this many dead slots pile up keeps trimming amortised O(1).
const COMPACT_THRESHOLD = 1024;
const EMPTY = Buffer.alloc(0);

/** What `drain()` hands back: head + tail concatenated is the retained content, in order. */
export interface DrainedOutput {
  head: Buffer;
  tail: Buffer;
  omittedBytes: number;
  totalBytes: number;
}

/**
 * Byte buffer with a fixed budget that keeps the first and the most recent bytes.
 *
 * Invariants (between calls):
 * - headBytes <= headCapacity = floor(maxBytes / 2), tailBytes <= tailCapacity = maxBytes - headCapacity;
 * - the tail only receives bytes once the head is full;
 * - totalBytes = headBytes + tailBytes + omittedBytes;
 * - stored chunks are the pushed bytes themselves (views, never copies: a flood would copy every byte it keeps), so
 *   a caller must not change a buffer it has pushed; the streams that feed it hand over a new buffer each time.
 */
export class HeadTailBuffer {
  readonly maxBytes: number;
  readonly headCapacity: number;
  readonly tailCapacity: number;

  private headChunks: Buffer[] = [];
  private headBytes = 0;
  // Live tail chunks are tailChunks[tailStart..]; slots before tailStart are dead and compacted lazily.
  private tailChunks: Buffer[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private omitted = 0;
  private total = 0;

  constructor(maxBytes: number = OUTPUT_MAX_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
    this.headCapacity = Math.floor(maxBytes / 2);
    this.tailCapacity = maxBytes - this.headCapacity;
  }

  /** Appends bytes, keeping a view of the part that can be retained: a flood costs O(1) per push. */
  push(chunk: Buffer | Uint8Array): void {
    const length = chunk.byteLength;
    if (length === 0) return;
    this.total += length;
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, length);

    let offset = 0;
    const headRoom = this.headCapacity - this.headBytes;
    if (headRoom > 0) {
      const take = Math.min(headRoom, length);
      this.headChunks.push(bytes.subarray(0, take));
      this.headBytes += take;
      offset = take;
    }
    if (offset === length) return;

    const rest = length - offset;
    // Bytes of this chunk that can never survive in the tail are counted now and never kept.
    const keep = Math.min(rest, this.tailCapacity);
    this.omitted += rest - keep;
    if (keep === 0) return;
    this.tailChunks.push(bytes.subarray(length - keep));
    this.tailBytes += keep;
    this.trimTail();
  }

  /** Bytes currently held (head + tail); never exceeds maxBytes. */
  get retainedBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  /** Bytes dropped from the middle since the last drain. */
  get omittedBytes(): number {
    return this.omitted;
  }

  /** Bytes pushed since the last drain, omitted ones included. */
  get totalBytes(): number {
    return this.total;
  }

  /** Retained content (head then tail) without resetting; the gap, if any, is not marked. */
  toBuffer(): Buffer {
    return Buffer.concat([...this.headChunks, ...this.liveTail()], this.retainedBytes);
  }

  /** Returns everything retained and resets to empty, so the head refills with the next bytes pushed. */
  drain(): DrainedOutput {
    const drained: DrainedOutput = {
      head: Buffer.concat(this.headChunks, this.headBytes),
      tail: Buffer.concat(this.liveTail(), this.tailBytes),
      omittedBytes: this.omitted,
      totalBytes: this.total,
    };
    this.headChunks = [];
    this.headBytes = 0;
    this.tailChunks = [];
    this.tailStart = 0;
    this.tailBytes = 0;
    this.omitted = 0;
    this.total = 0;
    return drained;
  }

  private liveTail(): Buffer[] {
    return this.tailStart === 0 ? this.tailChunks : this.tailChunks.slice(this.tailStart);
  }

  /** Drops the oldest tail bytes until tailBytes <= tailCapacity; each chunk is dropped at most once. */
  private trimTail(): void {
    let excess = this.tailBytes - this.tailCapacity;
    while (excess > 0) {
      const first = this.tailChunks[this.tailStart];
      if (first === undefined) break;
      if (first.length <= excess) {
        // Clear the slot so the dropped chunk can be garbage-collected before compaction.
        this.tailChunks[this.tailStart] = EMPTY;
        this.tailStart += 1;
        this.tailBytes -= first.length;
        this.omitted += first.length;
        excess -= first.length;
      } else {
        // subarray shares memory: trimming the front of a chunk copies nothing.
        this.tailChunks[this.tailStart] = first.subarray(excess);
        this.tailBytes -= excess;
        this.omitted += excess;
        excess = 0;
      }
    }
    if (this.tailStart >= COMPACT_THRESHOLD && this.tailStart * 2 >= this.tailChunks.length) {
      this.tailChunks = this.tailChunks.slice(this.tailStart);
      this.tailStart = 0;
    }
  }
}
