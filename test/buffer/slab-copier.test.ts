import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlabCopier } from '../../src/buffer/slab-copier.js';

describe('SlabCopier', () => {
  it('returns copies that hold their bytes after the source is reused, for any run of sizes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 80_000 }), { maxLength: 60 }), (sizes) => {
        const copier = new SlabCopier();
        const source = Buffer.alloc(80_000);
        const copies = sizes.map((size, i) => {
          source.fill(i % 251, 0, size);
          return { i, copy: copier.copy(source.subarray(0, size)) };
        });
        source.fill(255);
        for (const { i, copy } of copies) {
          expect(copy.length).toBe(sizes[i]);
          expect(copy.every((byte) => byte === i % 251)).toBe(true);
        }
      }),
    );
  });

  it('packs a stream of reads into shared slabs, growing up to the largest', () => {
    const copier = new SlabCopier(64 * 1024);
    const read = Buffer.alloc(4096, 1);
    const slabs = new Set(Array.from({ length: 60 }, () => copier.copy(read).buffer));
    // 240 KiB of reads: slabs of 16, 32, then 64 KiB (4 + 8 + 3 × 16 reads).
    expect(slabs.size).toBe(5);
    expect([...slabs].map((slab) => slab.byteLength)).toEqual([16384, 32768, 65536, 65536, 65536]);
  });

  it('copies a run too small for a slab, or too large, on its own', () => {
    const copier = new SlabCopier(64 * 1024);
    const small = copier.copy(Buffer.alloc(100, 2));
    const large = copier.copy(Buffer.alloc(20_000, 3));
    expect(large.buffer.byteLength).toBe(20_000);
    expect(small.buffer.byteLength).toBeLessThan(16384); // Node's shared pool, not a slab of ours
    expect(copier.copy(Buffer.alloc(2048)).buffer.byteLength).toBe(16384);
    // A run larger than the next slab: the slab doubled as far as needed.
    expect(new SlabCopier().copy(Buffer.alloc(30_000)).buffer.byteLength).toBe(32768);
  });

  it('refuses a largest slab below the first', () => {
    expect(() => new SlabCopier(1000)).toThrow(RangeError);
  });
});
