import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/util/json-depth.js';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings or after escaped quotes', () => {
    expect(nestsDeeperThan('[[1]]', 2)).toBe(false);
    expect(nestsDeeperThan('[[[1]]]', 2)).toBe(true);
    expect(nestsDeeperThan('{"a":{"b":[]}}', 2)).toBe(true);
    expect(nestsDeeperThan('["[[[[", "\\"[[[["]', 1)).toBe(false);
  });

  it('allows what real messages nest, and stops at the first level past the limit', () => {
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
  });
});
