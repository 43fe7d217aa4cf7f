/** The first slab a copier takes; each one after is twice the one before, up to the copier's largest. */
const FIRST_SLAB_BYTES = 16 * 1024;
/** Runs shorter than this come from Node's shared pool (Buffer.from): a slab is for runs that come in a stream. */
const SMALLEST_SLAB_COPY = 1024;

/**
 * Copies of byte runs that are kept for a while, packed one after another into slabs: a stream of 4 KiB reads costs
 * one allocation per slab instead of one per read. Each copy is a view of its slab and keeps all of it alive, so a
 * copier suits runs kept and let go in about the order they came (a log of the newest output): then a slab is freed
 * once its last run is. Runs too small to be worth a slab's share, or over a quarter of the largest slab, are copied
 * on their own.
 */
export class SlabCopier {
  private slab: Buffer | undefined;
  private used = 0;
  private nextSlabBytes = FIRST_SLAB_BYTES;

  constructor(private readonly largestSlabBytes = 256 * 1024) {
    if (!Number.isInteger(largestSlabBytes) || largestSlabBytes < FIRST_SLAB_BYTES) {
      throw new RangeError(
        `largestSlabBytes must be an integer of at least ${FIRST_SLAB_BYTES}, got ${largestSlabBytes}`,
      );
    }
  }

  /** A copy of `bytes`, which the caller may reuse once this returns. */
  copy(bytes: Uint8Array): Buffer {
    const n = bytes.length;
    if (n < SMALLEST_SLAB_COPY || n * 4 > this.largestSlabBytes) return Buffer.from(bytes);
    if (this.slab === undefined || this.slab.length - this.used < n) {
      while (this.nextSlabBytes < n) this.nextSlabBytes *= 2; // n is at most a quarter of the largest
      this.slab = Buffer.allocUnsafeSlow(this.nextSlabBytes);
      this.used = 0;
      this.nextSlabBytes = Math.min(this.nextSlabBytes * 2, this.largestSlabBytes);
    }
    const copy = this.slab.subarray(this.used, this.used + n);
    copy.set(bytes);
    this.used += n;
    return copy;
  }
}
