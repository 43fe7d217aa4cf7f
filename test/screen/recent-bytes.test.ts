import { describe, expect, it } from 'vitest';
import { RecentBytes } from '../../src/screen/recent-bytes.js';

describe('RecentBytes', () => {
  it('keeps everything while under its limit', () => {
    const recent = new RecentBytes(100);
    recent.push(Buffer.from('one\n'));
    recent.push(Buffer.from('two'));
    expect(recent.bytes().toString()).toBe('one\ntwo');
    expect(recent.byteLength).toBe(7);
  });

  it('keeps the latest bytes, starting after a line break once some were dropped', () => {
    const recent = new RecentBytes(10);
    recent.push(Buffer.from('aaaa\nbbbb\n'));
    recent.push(Buffer.from('cc\ndd'));
    expect(recent.byteLength).toBe(10);
    // The last 10 bytes are "bbb\ncc\ndd"-ish: the partial line "bbb" goes.
    expect(recent.bytes().toString()).toBe('cc\ndd');
  });

  it('keeps a cut start when no line break is left to begin at', () => {
    const recent = new RecentBytes(4);
    recent.push(Buffer.from('abcdefgh'));
    expect(recent.bytes().toString()).toBe('efgh');
  });

  it('stays within its limit over many small chunks, in order', () => {
    const recent = new RecentBytes(1000);
    let all = '';
    for (let i = 0; i < 5000; i++) {
      const piece = `${i}\n`;
      all += piece;
      recent.push(Buffer.from(piece));
      expect(recent.byteLength).toBeLessThanOrEqual(1000);
    }
    const kept = recent.bytes().toString();
    expect(all.endsWith(kept)).toBe(true);
    expect(kept.startsWith(`${5000 - kept.split('\n').length + 1}\n`)).toBe(true);
  });

  it('keeps copies: a buffer pushed may be read into again', () => {
    const recent = new RecentBytes(6);
    const reused = Buffer.from('ab\n');
    recent.push(reused);
    reused.write('cd\n');
    recent.push(reused);
    reused.write('XXX');
    expect(recent.bytes().toString()).toBe('ab\ncd\n');
  });
});
