import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteRing } from '../../src/buffer/byte-ring.js';

const text = (ring: ByteRing) => ring.toBuffer().toString('latin1');

describe('ByteRing', () => {
  it('keeps everything while under its capacity, in order', () => {
    const ring = new ByteRing(10);
    expect(ring.push(Buffer.from('abc'))).toBe(0);
    expect(ring.push(Buffer.from('def'))).toBe(0);
    expect(text(ring)).toBe('abcdef');
    expect(ring.length).toBe(6);
  });

  it('drops the oldest bytes past its capacity and says how many', () => {
    const ring = new ByteRing(5);
    ring.push(Buffer.from('abcd'));
    expect(ring.push(Buffer.from('efg'))).toBe(2);
    expect(text(ring)).toBe('cdefg');
    // Wrapped around: two views, oldest first.
    expect(ring.push(Buffer.from('hi'))).toBe(2);
    const views = ring.views();
    expect(views).toHaveLength(2);
    expect(Buffer.concat(views).toString('latin1')).toBe('efghi');
  });

  it('keeps the last bytes of a push larger than its capacity', () => {
    const ring = new ByteRing(4);
    ring.push(Buffer.from('ab'));
    expect(ring.push(Buffer.from('cdefghij'))).toBe(6);
    expect(text(ring)).toBe('ghij');
  });

  it('keeps nothing with a capacity of 0', () => {
    const ring = new ByteRing(0);
    expect(ring.push(Buffer.from('abc'))).toBe(3);
    expect(ring.length).toBe(0);
    expect(ring.views()).toEqual([]);
  });

  it('keeps copies: a buffer pushed may be written over afterwards', () => {
    const ring = new ByteRing(8);
    const reused = Buffer.from('abcd');
    ring.push(reused);
    reused.write('wxyz');
    ring.push(reused.subarray(0, 2));
    reused.write('QQQQ');
    expect(text(ring)).toBe('abcdwx');
  });

  it('holds no storage once cleared, and fills again from empty', () => {
    const ring = new ByteRing(4);
    ring.push(Buffer.from('abcdef'));
    ring.clear();
    expect(ring.length).toBe(0);
    expect(ring.views()).toEqual([]);
    ring.push(Buffer.from('xy'));
    expect(text(ring)).toBe('xy');
  });

  it('holds what a plain string of the last `capacity` bytes holds, over any pushes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 600 }),
        fc.array(fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ maxLength: 900 }), fc.constant('clear')), {
          maxLength: 60,
        }),
        (capacity, steps) => {
          const ring = new ByteRing(capacity);
          const reused = Buffer.alloc(900);
          let model = Buffer.alloc(0);
          for (const step of steps) {
            if (step === 'clear') {
              ring.clear();
              model = Buffer.alloc(0);
              continue;
            }
            // Pushed from a buffer written over right after, as a terminal's reads are.
            reused.set(step);
            const all = Buffer.concat([model, step]);
            const kept = all.subarray(Math.max(0, all.length - capacity));
            expect(ring.push(reused.subarray(0, step.length))).toBe(all.length - kept.length);
            reused.fill(0xee);
            model = Buffer.from(kept);
            expect(ring.length).toBe(model.length);
            expect(ring.toBuffer().equals(model)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
