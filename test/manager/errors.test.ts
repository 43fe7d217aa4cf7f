import { describe, expect, it } from 'vitest';
import { describeValue, unknownSession, UnifiedExecError } from '../../src/manager/errors.js';

describe('describeValue', () => {
  it('shows strings quoted and numbers plain, with their type', () => {
    expect(describeValue('abc')).toBe('"abc" (string)');
    expect(describeValue(Number.NaN)).toBe('NaN (number)');
    expect(describeValue(true)).toBe('true (boolean)');
  });

  it('shows objects and arrays as JSON rather than [object Object]', () => {
    expect(describeValue({ a: 1 })).toBe('{"a":1} (object)');
    expect(describeValue([1, 2])).toBe('[1,2] (array)');
  });

  it('cuts long values', () => {
    const shown = describeValue('x'.repeat(500));
    expect(shown.length).toBeLessThan(80);
    expect(shown).toContain('…');
  });

  it('says undefined and null plainly', () => {
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
  });
});

describe('UnifiedExecError', () => {
  it('carries a code and the compat message', () => {
    const error = unknownSession(424242);
    expect(error).toBeInstanceOf(UnifiedExecError);
    expect(error.code).toBe('UNKNOWN_SESSION');
    expect(error.message).toBe('Unknown process id 424242');
  });
});
