import { describe, expect, it } from 'vitest';
import { Listeners } from '../../src/util/listeners.js';

describe('Listeners', () => {
  it('calls each listener in the order added, until disposed or cleared', () => {
    const list = new Listeners<number>();
    const seen: string[] = [];
    list.emit(0); // none yet
    const a = list.add((v) => seen.push(`a${v}`));
    list.emit(1);
    list.add((v) => seen.push(`b${v}`));
    list.emit(2);
    a.dispose();
    list.emit(3);
    list.clear();
    list.emit(4);
    expect(seen).toEqual(['a1', 'a2', 'b2', 'b3']);
  });

  it('calls a listener added during an emit from the next one on, with one listener or more', () => {
    for (const before of [0, 1]) {
      const list = new Listeners<number>();
      const seen: string[] = [];
      for (let i = 0; i < before; i++) list.add((v) => seen.push(`x${v}`));
      let added = false;
      list.add((v) => {
        seen.push(`a${v}`);
        if (!added) list.add((w) => seen.push(`late${w}`));
        added = true;
      });
      list.emit(1);
      list.emit(2);
      const xs = (v: number) => Array.from({ length: before }, () => `x${v}`);
      expect(seen).toEqual([...xs(1), 'a1', ...xs(2), 'a2', 'late2']);
    }
  });

  it('disposing twice, or after a clear, changes nothing', () => {
    const list = new Listeners<string>();
    const seen: string[] = [];
    const a = list.add((v) => seen.push(v));
    a.dispose();
    a.dispose();
    list.clear();
    list.add((v) => seen.push(`b:${v}`));
    a.dispose();
    list.emit('go');
    expect(seen).toEqual(['b:go']);
  });

  it('goes back to the one listener left when the others are disposed, even from inside an emit', () => {
    const list = new Listeners<number>();
    const seen: string[] = [];
    const a = list.add((v) => seen.push(`a${v}`));
    const b = list.add((v) => {
      seen.push(`b${v}`);
      a.dispose();
    });
    list.emit(1); // a was called before b disposed it
    list.emit(2);
    b.dispose();
    list.emit(3);
    const c = list.add((v) => seen.push(`c${v}`));
    list.emit(4);
    c.dispose();
    list.emit(5);
    expect(seen).toEqual(['a1', 'b1', 'b2', 'c4']);
    expect(list.size).toBe(0);
  });

  it('hands a second value to its listeners', () => {
    const list = new Listeners<number, string>();
    const seen: string[] = [];
    list.add((v, from) => seen.push(`${from}:${v}`));
    list.emit(1, 'x');
    list.add((v, from) => seen.push(`${from}=${v}`));
    list.emit(2, 'y');
    expect(seen).toEqual(['x:1', 'y:2', 'y=2']);
  });
});
