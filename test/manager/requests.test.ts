import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closeSessionParams,
  closeSessionRequest,
  execCommandParams,
  execCommandRequest,
  parseArguments,
  shellRequest,
  writeStdinParams,
  writeStdinRequest,
} from '../../src/manager/requests.js';
import { invalid } from '../helpers/manager.js';

const exec = (args: unknown) => parseArguments(execCommandRequest, args);
const write = (args: unknown) => parseArguments(writeStdinRequest, args);
const close = (args: unknown) => parseArguments(closeSessionRequest, args);

describe('execCommandRequest (the library, camelCase)', () => {
  it('takes the same fields as exec_command, in camelCase', () => {
    expect(Object.keys(execCommandRequest.shape)).toEqual([
      'command',
      'cwd',
      'shell',
      'login',
      'tty',
      'yieldTimeMs',
      'maxOutputTokens',
      'sandboxPermissions',
      'justification',
      'executor',
      'cols',
      'rows',
      'screen',
    ]);
  });

  it('fills in the Codex defaults', () => {
    expect(exec({ command: 'ls' })).toStrictEqual({
      command: 'ls',
      login: true,
      tty: false,
      yieldTimeMs: 10_000,
      maxOutputTokens: 10_000,
      sandboxPermissions: 'use_default',
    });
  });

  it('keeps every field that was given', () => {
    const request = {
      command: 'ls',
      cwd: '/tmp',
      shell: '/bin/sh',
      login: false,
      tty: true,
      yieldTimeMs: 500,
      maxOutputTokens: 7,
      sandboxPermissions: 'require_escalated',
      justification: 'It installs a package, which needs the network.',
    };
    expect(exec(request)).toStrictEqual(request);
  });

  it('ignores an empty cwd', () => {
    expect(exec({ command: 'ls', cwd: '' }).cwd).toBeUndefined();
  });

  it('treats a null field as left out', () => {
    const nulls = {
      cwd: null,
      shell: null,
      login: null,
      tty: null,
      yieldTimeMs: null,
      maxOutputTokens: null,
      sandboxPermissions: null,
      justification: null,
    };
    expect(exec({ command: 'ls', ...nulls })).toStrictEqual(exec({ command: 'ls' }));
  });

  it('rounds fractional milliseconds and tokens down', () => {
    expect(exec({ command: 'ls', yieldTimeMs: 250.9, maxOutputTokens: 3.7 })).toMatchObject({
      yieldTimeMs: 250,
      maxOutputTokens: 3,
    });
  });

  it('refuses arguments that are not an object, saying what came', () => {
    expect(invalid(() => exec(null))).toBe('Invalid arguments: expected an object, got null');
    expect(invalid(() => exec(undefined))).toBe('Invalid arguments: expected an object, got undefined');
    expect(invalid(() => exec('ls'))).toBe('Invalid arguments: expected an object, got "ls" (string)');
    expect(invalid(() => exec(['ls']))).toBe('Invalid arguments: expected an object, got ["ls"] (array)');
  });

  it('says that command is required', () => {
    expect(invalid(() => exec({}))).toBe('Invalid arguments: `command`: is required');
    expect(invalid(() => exec({ command: null }))).toBe('Invalid arguments: `command`: is required');
  });

  it('names a field of the wrong type and says what came', () => {
    expect(invalid(() => exec({ command: 42 }))).toBe(
      'Invalid arguments: `command`: expected a string, got 42 (number)',
    );
    expect(invalid(() => exec({ command: 'ls', cwd: 5 }))).toBe(
      'Invalid arguments: `cwd`: expected a string, got 5 (number)',
    );
    expect(invalid(() => exec({ command: 'ls', tty: 'yes' }))).toBe(
      'Invalid arguments: `tty`: expected true or false, got "yes" (string)',
    );
    expect(invalid(() => exec({ command: 'ls', login: 1 }))).toBe(
      'Invalid arguments: `login`: expected true or false, got 1 (number)',
    );
    expect(invalid(() => exec({ command: 'ls', yieldTimeMs: 'abc' }))).toBe(
      'Invalid arguments: `yieldTimeMs`: expected a finite number, got "abc" (string)',
    );
    expect(invalid(() => exec({ command: 'ls', maxOutputTokens: Number.NaN }))).toBe(
      'Invalid arguments: `maxOutputTokens`: expected a finite number, got NaN (number)',
    );
    expect(invalid(() => exec({ command: 'ls', yieldTimeMs: Infinity }))).toBe(
      'Invalid arguments: `yieldTimeMs`: expected a finite number, got Infinity (number)',
    );
    expect(invalid(() => exec({ command: 'ls', yieldTimeMs: -1 }))).toBe(
      'Invalid arguments: `yieldTimeMs`: expected zero or more, got -1 (number)',
    );
  });

  it('shortens a long value it quotes back', () => {
    expect(invalid(() => exec({ command: 'ls', yieldTimeMs: 'x'.repeat(1000) }))).toBe(
      `Invalid arguments: \`yieldTimeMs\`: expected a finite number, got "${'x'.repeat(40)}…" (string)`,
    );
  });

  it('refuses an empty or blank command, a command holding NUL, and a blank shell', () => {
    expect(invalid(() => exec({ command: '' }))).toBe(
      'Invalid arguments: `command`: expected a command line, got an empty string',
    );
    expect(invalid(() => exec({ command: ' \n\t' }))).toBe(
      'Invalid arguments: `command`: expected a command line, got only white space',
    );
    expect(invalid(() => exec({ command: 'echo a\0b' }))).toBe(
      'Invalid arguments: `command`: expected no NUL character (\\u0000)',
    );
    expect(invalid(() => exec({ command: 'ls', shell: '' }))).toBe(
      'Invalid arguments: `shell`: expected a shell binary, got an empty string',
    );
    expect(invalid(() => exec({ command: 'ls', shell: '   ' }))).toBe(
      'Invalid arguments: `shell`: expected a shell binary, got only white space',
    );
  });

  it('reports every wrong field in one error', () => {
    expect(invalid(() => exec({ command: 5, tty: 'yes', yieldTimeMs: 'x' }))).toBe(
      'Invalid arguments: `command`: expected a string, got 5 (number); ' +
        '`tty`: expected true or false, got "yes" (string); ' +
        '`yieldTimeMs`: expected a finite number, got "x" (string)',
    );
  });
});

describe('shellRequest (the library, camelCase)', () => {
  const shell = (args: unknown) => parseArguments(shellRequest, args);

  it('takes an argv and fills in only the sandbox default', () => {
    expect(Object.keys(shellRequest.shape)).toEqual([
      'command',
      'cwd',
      'timeoutMs',
      'sandboxPermissions',
      'justification',
      'executor',
    ]);
    expect(shell({ command: ['ls', '-la'] })).toStrictEqual({
      command: ['ls', '-la'],
      sandboxPermissions: 'use_default',
    });
    expect(shell({ command: ['ls'], cwd: '', timeoutMs: null }).cwd).toBeUndefined();
  });

  it('refuses what cannot be run as an argv', () => {
    expect(invalid(() => shell({}))).toBe('Invalid arguments: `command`: is required');
    expect(invalid(() => shell({ command: 'ls' }))).toBe(
      'Invalid arguments: `command`: expected an array of strings, got "ls" (string)',
    );
    expect(invalid(() => shell({ command: ['ls', 7] }))).toBe(
      'Invalid arguments: `command.1`: expected a string, got 7 (number)',
    );
    expect(invalid(() => shell({ command: [] }))).toBe(
      'Invalid arguments: `command`: expected a program and its arguments, got an empty array',
    );
    expect(invalid(() => shell({ command: [''] }))).toBe(
      'Invalid arguments: `command`: expected a program name first, got an empty string',
    );
    expect(invalid(() => shell({ command: ['echo', 'a\0b'] }))).toBe(
      'Invalid arguments: `command`: expected no NUL character (\\u0000)',
    );
    expect(invalid(() => shell({ command: ['ls'], timeoutMs: -5 }))).toBe(
      'Invalid arguments: `timeoutMs`: expected a positive number, got -5 (number)',
    );
    expect(invalid(() => shell({ command: ['ls'], timeoutMs: Infinity }))).toBe(
      'Invalid arguments: `timeoutMs`: expected a finite number, got Infinity (number)',
    );
  });
});

describe('writeStdinRequest and closeSessionRequest (the library, camelCase)', () => {
  it('fills in the write_stdin defaults: an empty poll of 250 ms', () => {
    expect(write({ sessionId: 1000 })).toStrictEqual({
      sessionId: 1000,
      chars: '',
      yieldTimeMs: 250,
      maxOutputTokens: 10_000,
    });
    expect(write({ sessionId: 1000, chars: null, yieldTimeMs: null })).toStrictEqual(write({ sessionId: 1000 }));
  });

  it('keeps chars exactly, control characters included', () => {
    expect(write({ sessionId: 1, chars: 'a\r\n\u0003\u0004' }).chars).toBe('a\r\n\u0003\u0004');
  });

  it('accepts a session id written as a string of digits, as models sometimes send it', () => {
    expect(write({ sessionId: '12345' }).sessionId).toBe(12345);
    expect(write({ sessionId: ' 42 ' }).sessionId).toBe(42);
    expect(close({ sessionId: '7' })).toStrictEqual({ sessionId: 7 });
  });

  it.each([
    [-1, '-1 (number)'],
    [0, '0 (number)'],
    [1.5, '1.5 (number)'],
    [2 ** 53, '9007199254740992 (number)'],
    ['-1', '"-1" (string)'],
    ['1.5', '"1.5" (string)'],
    ['abc', '"abc" (string)'],
    ['', '"" (string)'],
    [true, 'true (boolean)'],
    [[7], '[7] (array)'],
  ])('refuses the session id %j, saying what came', (value, shown) => {
    const expected = `Invalid arguments: \`sessionId\`: expected a positive integer, got ${shown}`;
    expect(invalid(() => write({ sessionId: value }))).toBe(expected);
    expect(invalid(() => close({ sessionId: value }))).toBe(expected);
  });

  it('says which field is wrong or missing', () => {
    expect(invalid(() => write({}))).toBe('Invalid arguments: `sessionId`: is required');
    expect(invalid(() => close({}))).toBe('Invalid arguments: `sessionId`: is required');
    expect(invalid(() => write({ sessionId: 1, chars: 7 }))).toBe(
      'Invalid arguments: `chars`: expected a string, got 7 (number)',
    );
    expect(invalid(() => write({ sessionId: 1, yieldTimeMs: '5s' }))).toBe(
      'Invalid arguments: `yieldTimeMs`: expected a finite number, got "5s" (string)',
    );
  });
});

describe('unknown fields', () => {
  it('are an error for the library, which a program calls: a wire name there is a mistake', () => {
    expect(invalid(() => exec({ command: 'ls', yield_time_ms: 500 }))).toBe(
      'Invalid arguments: unknown field `yield_time_ms`',
    );
    // The wire's `cmd` and `workdir` are `command` and `cwd` in the library.
    expect(invalid(() => exec({ cmd: 'ls', workdir: '/tmp' }))).toBe(
      'Invalid arguments: `command`: is required; unknown fields `cmd`, `workdir`',
    );
    expect(invalid(() => write({ sessionId: 7, session_id: 7, bogus: 1 }))).toBe(
      'Invalid arguments: unknown fields `session_id`, `bogus`',
    );
  });

  it('are ignored on the wire, where a model may add one', () => {
    expect(parseArguments(execCommandParams, { cmd: 'ls', yieldTimeMs: 500 })).not.toHaveProperty('yieldTimeMs');
    expect(parseArguments(execCommandParams, { cmd: 'ls', yieldTimeMs: 500 }).yield_time_ms).toBe(10_000);
  });
});

describe('the wire schemas (snake_case, what models send)', () => {
  it('fill in the same defaults under snake_case names', () => {
    expect(parseArguments(execCommandParams, { cmd: 'ls' })).toStrictEqual({
      cmd: 'ls',
      login: true,
      tty: false,
      yield_time_ms: 10_000,
      max_output_tokens: 10_000,
      sandbox_permissions: 'use_default',
    });
    expect(parseArguments(writeStdinParams, { session_id: '1000' })).toStrictEqual({
      session_id: 1000,
      chars: '',
      yield_time_ms: 250,
      max_output_tokens: 10_000,
    });
    expect(parseArguments(closeSessionParams, { session_id: 7 })).toStrictEqual({ session_id: 7 });
  });

  it('name wrong fields the way the model wrote them', () => {
    expect(invalid(() => parseArguments(execCommandParams, { cmd: 'ls', yield_time_ms: 'abc' }))).toBe(
      'Invalid arguments: `yield_time_ms`: expected a finite number, got "abc" (string)',
    );
    expect(invalid(() => parseArguments(execCommandParams, { cmd: 'ls', max_output_tokens: -1 }))).toBe(
      'Invalid arguments: `max_output_tokens`: expected zero or more, got -1 (number)',
    );
    expect(invalid(() => parseArguments(writeStdinParams, {}))).toBe('Invalid arguments: `session_id`: is required');
    expect(invalid(() => parseArguments(writeStdinParams, { session_id: 'abc' }))).toBe(
      'Invalid arguments: `session_id`: expected a positive integer, got "abc" (string)',
    );
    expect(invalid(() => parseArguments(closeSessionParams, { session_id: 1.5 }))).toBe(
      'Invalid arguments: `session_id`: expected a positive integer, got 1.5 (number)',
    );
  });

  it('treat null as left out and round fractions down, as the library does', () => {
    expect(
      parseArguments(execCommandParams, { cmd: 'ls', shell: null, yield_time_ms: 300.8, max_output_tokens: null }),
    ).toStrictEqual({
      cmd: 'ls',
      login: true,
      tty: false,
      yield_time_ms: 300,
      max_output_tokens: 10_000,
      sandbox_permissions: 'use_default',
    });
  });
});

describe('write_stdin checked without zod (the usual call), beside zod', () => {
  // parseArguments answers the usual write_stdin call without zod; here both answer every kind of value, so the
  // shortcut can never take or fill in what zod would not.
  const value = fc.oneof(
    fc.integer({ min: -5, max: 100_000 }),
    fc.double({ noDefaultInfinity: false }),
    fc.constantFrom(Number.NaN, Infinity, -0, 0.5, 2 ** 53, 2 ** 53 + 2, 12_345),
    fc.string(),
    fc.constantFrom('123', ' 42 ', '', '1e3'),
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.array(fc.string(), { maxLength: 2 }),
  );
  const asked = (names: string[]) => fc.dictionary(fc.constantFrom(...names), value, { maxKeys: names.length });
  const answer = (schema: Parameters<typeof parseArguments>[0], args: object) => {
    try {
      return { ok: parseArguments(schema, args) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const zodAnswer = (schema: Parameters<typeof parseArguments>[0], args: object) => {
    const present = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
    const result = schema.safeParse(present);
    return result.success ? { ok: result.data } : undefined;
  };

  it.each([
    [
      'the library',
      writeStdinRequest,
      ['sessionId', 'chars', 'yieldTimeMs', 'maxOutputTokens', 'keys', 'screen', 'bogus'],
    ],
    ['the wire', writeStdinParams, ['session_id', 'chars', 'yield_time_ms', 'max_output_tokens', 'cols', 'extra']],
  ] as const)('%s: the same answer for any call', (_, schema, names) => {
    fc.assert(
      fc.property(asked([...names]), (args) => {
        const ours = answer(schema, args);
        const zods = zodAnswer(schema, args);
        if (zods === undefined) expect(ours).toHaveProperty('error');
        else expect(ours).toEqual(zods);
      }),
      { numRuns: 10_000 },
    );
  });

  it('answers the usual call as zod does, key for key', () => {
    const args = { sessionId: 12_345, chars: 'echo hi\r', yieldTimeMs: 10_000.7 };
    expect(parseArguments(writeStdinRequest, args)).toStrictEqual(writeStdinRequest.parse(args));
    expect(Object.keys(parseArguments(writeStdinRequest, { sessionId: 1 }))).toEqual(
      Object.keys(writeStdinRequest.parse({ sessionId: 1 })),
    );
  });
});
