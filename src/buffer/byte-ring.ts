const EMPTY = Buffer.alloc(0);
/** The first storage a ring takes: a prompt's few bytes fit, and small ones come from Node's shared pool. */
const FIRST_STORE_BYTES = 256;

/**
 * The latest `capacity` bytes pushed, copied into storage of the ring's own. The storage grows by doubling as bytes
 * come, up to `capacity`, and then the newest bytes overwrite the oldest. A stream read into one reused buffer can
 * be kept this way: nothing here refers to a pushed buffer after push() returns, and a flood allocates nothing.
 */
export class ByteRing {
  private store: Buffer = EMPTY;
  /** Where the oldest byte held is in `store`. */
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new RangeError(`capacity must be a non-negative integer, got ${capacity}`);
    }
  }

  /** Bytes held, at most `capacity`. */
  get length(): number {
    return this.size;
  }

  /** Copies `bytes` in; returns how many bytes (held before, or of these) were dropped to keep within capacity. */
  push(bytes: Uint8Array): number {
    const n = bytes.length;
    if (n === 0) return 0;
    const capacity = this.capacity;
    if (n >= capacity) {
      // Only the last `capacity` bytes of these can stay; nothing held before survives them.
      const dropped = this.size + n - capacity;
      if (this.store.length < capacity) this.store = Buffer.allocUnsafe(capacity);
      this.store.set(bytes.subarray(n - capacity));
      this.start = 0;
      this.size = capacity;
      return dropped;
    }
    const needed = this.size + n;
    if (needed > this.store.length && this.store.length < capacity) {
      this.grow(Math.min(capacity, Math.max(needed, this.store.length * 2, FIRST_STORE_BYTES)));
    }
    const storeLength = this.store.length;
    let dropped = 0;
    if (needed > storeLength) {
      dropped = needed - storeLength;
      this.start = (this.start + dropped) % storeLength;
      this.size -= dropped;
    }
    const at = (this.start + this.size) % storeLength;
    const first = Math.min(n, storeLength - at);
    this.store.set(first === n ? bytes : bytes.subarray(0, first), at);
    if (first < n) this.store.set(bytes.subarray(first), 0);
    this.size += n;
    return dropped;
  }

  /** The bytes held, oldest first: none, one or two views of the storage, valid until the next push or clear. */
  views(): Buffer[] {
    if (this.size === 0) return [];
    const end = this.start + this.size;
    if (end <= this.store.length) return [this.store.subarray(this.start, end)];
    return [this.store.subarray(this.start), this.store.subarray(0, end - this.store.length)];
  }

  /** The bytes held, oldest first, as a buffer of the caller's own. */
  toBuffer(): Buffer {
    return Buffer.concat(this.views(), this.size);
  }

  /** Empties the ring and lets its storage go (a session at rest holds none). */
  clear(): void {
    this.store = EMPTY;
    this.start = 0;
    this.size = 0;
  }

  /** Moves what is held to the start of a larger storage. */
  private grow(storeLength: number): void {
    const next = Buffer.allocUnsafe(storeLength);
    let at = 0;
    for (const view of this.views()) {
      next.set(view, at);
      at += view.length;
    }
    this.store = next;
    this.start = 0;
  }
}
