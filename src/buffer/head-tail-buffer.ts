import { ByteRing } from './byte-ring.js';

/** Default byte budget for one session's retained output (1 MiB). */
export const OUTPUT_MAX_BYTES = 1024 * 1024;

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
 * - the bytes kept are copies in storage of the buffer's own (see ByteRing), so a caller may reuse a buffer it has
 *   pushed (a terminal read into one buffer each time): a flood copies each byte once and allocates nothing.
 */
export class HeadTailBuffer {
  readonly maxBytes: number;
  readonly headCapacity: number;
  readonly tailCapacity: number;

  private readonly head: ByteRing;
  private readonly tail: ByteRing;
  private omitted = 0;
  private total = 0;

  constructor(maxBytes: number = OUTPUT_MAX_BYTES) {
    if (!Number.isInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
    this.headCapacity = Math.floor(maxBytes / 2);
    this.tailCapacity = maxBytes - this.headCapacity;
    this.head = new ByteRing(this.headCapacity);
    this.tail = new ByteRing(this.tailCapacity);
  }

  /** Appends a copy of the bytes that can be retained: O(length) per push, whatever was pushed before. */
  push(chunk: Uint8Array): void {
    const length = chunk.byteLength;
    if (length === 0) return;
    this.total += length;
    const headRoom = this.headCapacity - this.head.length;
    if (headRoom >= length) {
      this.head.push(chunk);
      return;
    }
    if (headRoom > 0) this.head.push(chunk.subarray(0, headRoom));
    this.omitted += this.tail.push(headRoom > 0 ? chunk.subarray(headRoom) : chunk);
  }

  /** Bytes currently held (head + tail); never exceeds maxBytes. */
  get retainedBytes(): number {
    return this.head.length + this.tail.length;
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
    return Buffer.concat([...this.head.views(), ...this.tail.views()], this.retainedBytes);
  }

  /** Returns everything retained and resets to empty, so the head refills with the next bytes pushed. */
  drain(): DrainedOutput {
    const drained: DrainedOutput = {
      head: this.head.toBuffer(),
      tail: this.tail.toBuffer(),
      omittedBytes: this.omitted,
      totalBytes: this.total,
    };
    this.head.clear();
    this.tail.clear();
    this.omitted = 0;
    this.total = 0;
    return drained;
  }
}
