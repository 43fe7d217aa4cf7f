import { describe, expect, it } from 'vitest';
import { UnifiedExecError } from '../../src/index.js';
import { normalizeExec, normalizeWrite, parseSessionId } from '../../src/manager/validate.js';

/** The INVALID_ARGUMENT message `fn` throws. */
function invalid(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UnifiedExecError);
    expect((err as UnifiedExecError).code).toBe('INVALID_ARGUMENT');
    return (err as Error).message;
  }
  throw new Error('expected an INVALID_ARGUMENT error, but nothing was thrown');
}

describe('normalizeExec', () => {
  it('fills in the Codex defaults', () => {
    expect(normalizeExec({ cmd: 'ls' })).toEqual({
      cmd: 'ls',
      workdir: undefined,
      shell: undefined,
      login: true,
      tty: false,
      yieldTimeMs: 10_000,
      maxOutputTokens: 10_000,
    });
  });

  it('keeps every field that was given', () => {
    const request = {
      cmd: 'ls',
      workdir: '/tmp',
      shell: '/bin/sh',
      login: false,
      tty: true,
      yieldTimeMs: 500,
      maxOutputTokens: 7,
    };
    expect(normalizeExec(request)).toEqual(request);
  });

  it('ignores an empty workdir and treats null like a missing field', () => {
    expect(normalizeExec({ cmd: 'ls', workdir: '' }).workdir).toBeUndefined();
    expect(normalizeExec({ cmd: 'ls', tty: null, yieldTimeMs: null, shell: null })).toMatchObject({
      tty: false,
      yieldTimeMs: 10_000,
      shell: undefined,
    });
  });

  it('rounds fractional milliseconds and tokens down', () => {
    expect(normalizeExec({ cmd: 'ls', yieldTimeMs: 250.9, maxOutputTokens: 3.7 })).toMatchObject({
      yieldTimeMs: 250,
      maxOutputTokens: 3,
    });
  });

  it('rejects a request that is not an object', () => {
    expect(invalid(() => normalizeExec(null))).toBe('Expected the exec_command request to be an object, got null');
    expect(invalid(() => normalizeExec('ls'))).toBe(
      'Expected the exec_command request to be an object, got "ls" (string)',
    );
    expect(invalid(() => normalizeExec(['ls']))).toMatch(/\(array\)$/);
  });

  it('says that cmd is missing', () => {
    expect(invalid(() => normalizeExec({}))).toBe('Expected `cmd` to be a string, got undefined');
  });

  it('says what came when cmd is not a string', () => {
    expect(invalid(() => normalizeExec({ cmd: 42 }))).toBe('Expected `cmd` to be a string, got 42 (number)');
  });

  it('rejects an empty or blank cmd', () => {
    expect(invalid(() => normalizeExec({ cmd: '' }))).toMatch(/`cmd`.*non-empty.*empty string/);
    expect(invalid(() => normalizeExec({ cmd: '  \n' }))).toMatch(/`cmd`/);
  });

  it('says which number field is wrong and what came', () => {
    expect(invalid(() => normalizeExec({ cmd: 'ls', yieldTimeMs: 'abc' }))).toBe(
      'Expected `yieldTimeMs` to be a finite number, got "abc" (string)',
    );
    expect(invalid(() => normalizeExec({ cmd: 'ls', maxOutputTokens: Number.NaN }))).toBe(
      'Expected `maxOutputTokens` to be a finite number, got NaN (number)',
    );
    expect(invalid(() => normalizeExec({ cmd: 'ls', yieldTimeMs: Infinity }))).toMatch(/`yieldTimeMs`.*Infinity/);
    expect(invalid(() => normalizeExec({ cmd: 'ls', yieldTimeMs: -1 }))).toBe(
      'Expected `yieldTimeMs` to be zero or more, got -1',
    );
  });

  it('says which flag is wrong and what came', () => {
    expect(invalid(() => normalizeExec({ cmd: 'ls', tty: 'yes' }))).toBe(
      'Expected `tty` to be true or false, got "yes" (string)',
    );
    expect(invalid(() => normalizeExec({ cmd: 'ls', login: 1 }))).toBe(
      'Expected `login` to be true or false, got 1 (number)',
    );
  });

  it('rejects a workdir or shell that is not a usable string', () => {
    expect(invalid(() => normalizeExec({ cmd: 'ls', workdir: 5 }))).toBe(
      'Expected `workdir` to be a string, got 5 (number)',
    );
    expect(invalid(() => normalizeExec({ cmd: 'ls', shell: '' }))).toMatch(/`shell`.*empty string/);
  });

  it('shortens a long value it quotes back', () => {
    const message = invalid(() => normalizeExec({ cmd: 'ls', yieldTimeMs: 'x'.repeat(1000) }));
    expect(message).toBe(`Expected \`yieldTimeMs\` to be a finite number, got "${'x'.repeat(40)}…" (string)`);
  });
});

describe('parseSessionId', () => {
  it('accepts a positive integer', () => {
    expect(parseSessionId(1000)).toBe(1000);
    expect(parseSessionId(1)).toBe(1);
  });

  it('accepts a quoted id, as models sometimes send', () => {
    expect(parseSessionId('12345')).toBe(12345);
    expect(parseSessionId(' 42 ')).toBe(42);
  });

  it.each([0, -3, 1.5, Number.NaN, 2 ** 53, 'abc', '12a', '', undefined, null, true, {}])(
    'rejects %s with a message naming sessionId',
    (value) => {
      expect(invalid(() => parseSessionId(value))).toMatch(/^Expected `sessionId` to be a positive integer, got /);
    },
  );

  it('says what came', () => {
    expect(invalid(() => parseSessionId('abc'))).toBe(
      'Expected `sessionId` to be a positive integer, got "abc" (string)',
    );
    expect(invalid(() => parseSessionId(undefined))).toBe(
      'Expected `sessionId` to be a positive integer, got undefined',
    );
  });
});

describe('normalizeWrite', () => {
  it('fills in the write_stdin defaults: an empty poll of 250 ms', () => {
    expect(normalizeWrite({ sessionId: 1000 })).toEqual({
      sessionId: 1000,
      chars: '',
      yieldTimeMs: 250,
      maxOutputTokens: 10_000,
    });
  });

  it('keeps chars byte for byte, control characters included', () => {
    expect(normalizeWrite({ sessionId: '1000', chars: 'a\r\n\u0003\u0004' })).toMatchObject({
      sessionId: 1000,
      chars: 'a\r\n\u0003\u0004',
    });
  });

  it('says which field is wrong', () => {
    expect(invalid(() => normalizeWrite({}))).toBe('Expected `sessionId` to be a positive integer, got undefined');
    expect(invalid(() => normalizeWrite({ sessionId: 1, chars: 7 }))).toBe(
      'Expected `chars` to be a string, got 7 (number)',
    );
    expect(invalid(() => normalizeWrite({ sessionId: 1, yieldTimeMs: '5s' }))).toBe(
      'Expected `yieldTimeMs` to be a finite number, got "5s" (string)',
    );
    expect(invalid(() => normalizeWrite(undefined))).toBe(
      'Expected the write_stdin request to be an object, got undefined',
    );
  });
});
