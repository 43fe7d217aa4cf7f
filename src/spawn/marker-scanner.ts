/**
 * Finds one marker in a byte stream that arrives in chunks and removes it, passing every other byte through in
 * order. Bytes that could be the start of a split marker are held back until the next chunk decides.
 */
export class MarkerScanner {
  private carry: Buffer = Buffer.alloc(0);

  constructor(private readonly marker: Buffer) {}

  /** Returns the bytes to pass on and whether the marker was found (the scanner is then done). */
  push(chunk: Buffer): { pass: Buffer; found: boolean } {
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = Buffer.alloc(0);
    const at = buf.indexOf(this.marker);
    if (at >= 0) {
      return {
        pass: Buffer.concat([buf.subarray(0, at), buf.subarray(at + this.marker.length)]),
        found: true,
      };
    }
    const keep = this.partialSuffix(buf);
    // A copy: the chunk may be a view of a buffer its reader reads into again.
    this.carry = keep > 0 ? Buffer.from(buf.subarray(buf.length - keep)) : Buffer.alloc(0);
    return { pass: buf.subarray(0, buf.length - keep), found: false };
  }

  /** Whatever was held back, for when the marker will never come. */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }

  /** Length of the longest suffix of buf that is a proper prefix of the marker. */
  private partialSuffix(buf: Buffer): number {
    const max = Math.min(buf.length, this.marker.length - 1);
    for (let len = max; len > 0; len--) {
      if (buf.subarray(buf.length - len).equals(this.marker.subarray(0, len))) return len;
    }
    return 0;
  }
}
