import { describe, expect, it } from 'vitest';
import { rustDebug, rustJoin } from '../../src/exec-server/start-check.js';

describe("the real server's path and string printing", () => {
  it("joins as Rust's Path::join: unnormalised, an absolute part replacing, an empty one adding a slash", () => {
    expect(rustJoin('/a', './b')).toBe('/a/./b');
    expect(rustJoin('/a/', 'b')).toBe('/a/b');
    expect(rustJoin('/a', '../b')).toBe('/a/../b');
    expect(rustJoin('/a', '/b')).toBe('/b');
    expect(rustJoin('/a', '')).toBe('/a/');
  });

  it("quotes as Rust's {:?}: quotes, backslashes and control characters escaped, other text kept", () => {
    expect(rustDebug('/usr/bin:/bin')).toBe('"/usr/bin:/bin"');
    expect(rustDebug('')).toBe('""');
    expect(rustDebug('/no"pe:/x\\y:/é')).toBe('"/no\\"pe:/x\\\\y:/é"');
    expect(rustDebug('a\tb\nc\rd\0e\x1bf\x7f')).toBe('"a\\tb\\nc\\rd\\0e\\u{1b}f\\u{7f}"');
    expect(rustDebug("it's")).toBe('"it\'s"');
  });
});
