import { describe, expect, it } from 'vitest';
import { MarkerScanner } from '../../src/spawn/marker-scanner.js';

const MARKER = Buffer.from('\x1b_ue-drain-abc\x1b\\');

/** Feeds `chunks` through a fresh scanner; returns what passed (flush included) and whether the marker was found. */
function scan(chunks: Buffer[]): { passed: string; found: boolean; foundAt: number } {
  const scanner = new MarkerScanner(MARKER);
  const out: Buffer[] = [];
  let foundAt = -1;
  chunks.forEach((chunk, index) => {
    const { pass, found } = scanner.push(chunk);
    out.push(pass);
    if (found && foundAt < 0) foundAt = index;
  });
  out.push(scanner.flush());
  return { passed: Buffer.concat(out).toString('latin1'), found: foundAt >= 0, foundAt };
}

describe('MarkerScanner', () => {
  it('removes a marker that arrives in one chunk and passes the bytes around it in order', () => {
    const result = scan([Buffer.concat([Buffer.from('before'), MARKER, Buffer.from('after')])]);
    expect(result).toEqual({ passed: 'beforeafter', found: true, foundAt: 0 });
  });

  it('finds a marker split across two chunks at every position', () => {
    const stream = Buffer.concat([Buffer.from('head-'), MARKER, Buffer.from('-tail')]);
    for (let cut = 1; cut < stream.length; cut++) {
      const result = scan([stream.subarray(0, cut), stream.subarray(cut)]);
      expect(result, `cut at ${cut}`).toMatchObject({ passed: 'head--tail', found: true });
    }
  });

  it('finds a marker that arrives one byte at a time', () => {
    const stream = Buffer.concat([Buffer.from('x'), MARKER, Buffer.from('y')]);
    const bytes = [...stream].map((byte) => Buffer.from([byte]));
    const result = scan(bytes);
    expect(result).toEqual({ passed: 'xy', found: true, foundAt: 1 + MARKER.length - 1 });
  });

  it('passes bytes that only look like the start of the marker once the next chunk rules it out', () => {
    const scanner = new MarkerScanner(MARKER);
    const first = scanner.push(Buffer.from('text\x1b_ue'));
    expect(first.pass.toString('latin1')).toBe('text');
    const second = scanner.push(Buffer.from('-nope'));
    expect(second).toEqual({ pass: Buffer.from('\x1b_ue-nope', 'latin1'), found: false });
  });

  it('hands back held bytes on flush when the marker never comes', () => {
    const scanner = new MarkerScanner(MARKER);
    expect(scanner.push(Buffer.from('abc\x1b_ue-dr')).pass.toString('latin1')).toBe('abc');
    expect(scanner.flush().toString('latin1')).toBe('\x1b_ue-dr');
    expect(scanner.flush().length).toBe(0);
  });

  it('holds nothing back when no suffix can start the marker', () => {
    const scanner = new MarkerScanner(MARKER);
    expect(scanner.push(Buffer.from('plain output\n'))).toEqual({ pass: Buffer.from('plain output\n'), found: false });
    expect(scanner.flush().length).toBe(0);
  });

  it('passes every byte of random data that never contains the marker', () => {
    const data = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251));
    const chunks: Buffer[] = [];
    for (let at = 0; at < data.length;) {
      const size = 1 + ((at * 31) % 97);
      chunks.push(data.subarray(at, at + size));
      at += size;
    }
    const result = scan(chunks);
    expect(result.found).toBe(false);
    expect(Buffer.from(result.passed, 'latin1').equals(data)).toBe(true);
  });
});
