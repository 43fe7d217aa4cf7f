import { DEFAULT_EXEC_YIELD_TIME_MS, DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_WRITE_YIELD_TIME_MS } from './constants.js';
import { describeValue, invalidArgument } from './errors.js';

/** Requests with every default filled in and every field checked. */
export interface NormalizedExec {
  cmd: string;
  workdir: string | undefined;
  shell: string | undefined;
  login: boolean;
  tty: boolean;
  yieldTimeMs: number;
  maxOutputTokens: number;
}

export interface NormalizedWrite {
  sessionId: number;
  chars: string;
  yieldTimeMs: number;
  maxOutputTokens: number;
}

type Fields = Record<string, unknown>;

function expectObject(request: unknown, what: string): Fields {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw invalidArgument(`Expected ${what} to be an object, got ${describeValue(request)}`);
  }
  return request as Fields;
}

function optionalString(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw invalidArgument(`Expected \`${name}\` to be a string, got ${describeValue(value)}`);
  return value;
}

function optionalBoolean(fields: Fields, name: string, fallback: boolean): boolean {
  const value = fields[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean')
    throw invalidArgument(`Expected \`${name}\` to be true or false, got ${describeValue(value)}`);
  return value;
}

/** A non-negative finite number of milliseconds or tokens; fractions round down. */
function optionalCount(fields: Fields, name: string, fallback: number): number {
  const value = fields[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw invalidArgument(`Expected \`${name}\` to be a finite number, got ${describeValue(value)}`);
  }
  if (value < 0) throw invalidArgument(`Expected \`${name}\` to be zero or more, got ${value}`);
  return Math.floor(value);
}

export function normalizeExec(request: unknown): NormalizedExec {
  const fields = expectObject(request, 'the exec_command request');
  const cmd = fields.cmd;
  if (typeof cmd !== 'string') throw invalidArgument(`Expected \`cmd\` to be a string, got ${describeValue(cmd)}`);
  if (cmd.trim() === '') throw invalidArgument('Expected `cmd` to be a non-empty command line, got an empty string');
  // exec() ends each argument at a NUL: a PTY would run only the part before it (pipes refuse it). Refuse it for both.
  if (cmd.includes('\0')) {
    throw invalidArgument(
      `Expected \`cmd\` to contain no NUL character (\\u0000), got one at index ${cmd.indexOf('\0')}`,
    );
  }
  const workdir = optionalString(fields, 'workdir');
  const shell = optionalString(fields, 'shell');
  if (shell !== undefined && shell.trim() === '')
    throw invalidArgument('Expected `shell` to name a shell binary, got an empty string');
  return {
    cmd,
    workdir: workdir === '' ? undefined : workdir,
    shell,
    login: optionalBoolean(fields, 'login', true),
    tty: optionalBoolean(fields, 'tty', false),
    yieldTimeMs: optionalCount(fields, 'yieldTimeMs', DEFAULT_EXEC_YIELD_TIME_MS),
    maxOutputTokens: optionalCount(fields, 'maxOutputTokens', DEFAULT_MAX_OUTPUT_TOKENS),
  };
}

/** A session id: a positive integer, or a string of digits (models sometimes quote ids). */
export function parseSessionId(value: unknown): number {
  const id = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
    throw invalidArgument(`Expected \`sessionId\` to be a positive integer, got ${describeValue(value)}`);
  }
  return id;
}

export function normalizeWrite(request: unknown): NormalizedWrite {
  const fields = expectObject(request, 'the write_stdin request');
  return {
    sessionId: parseSessionId(fields.sessionId),
    chars: optionalString(fields, 'chars') ?? '',
    yieldTimeMs: optionalCount(fields, 'yieldTimeMs', DEFAULT_WRITE_YIELD_TIME_MS),
    maxOutputTokens: optionalCount(fields, 'maxOutputTokens', DEFAULT_MAX_OUTPUT_TOKENS),
  };
}
