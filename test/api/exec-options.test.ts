import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exec, type ExecOptions } from '../../src/index.js';
import { rejection } from '../helpers/manager.js';

// exec() checks its options as the manager checks its settings: a wrong one is named with what came, an unknown one
// is refused rather than ignored, and in either case nothing runs.

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A command that leaves a file behind if it runs at all. */
function marker(): { command: string; ran: () => boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'exec-options-'));
  dirs.push(dir);
  const file = join(dir, 'ran');
  return { command: `touch ${file}`, ran: () => existsSync(file) };
}

const refused = async (options: unknown) => (await rejection(exec(options as ExecOptions), 'INVALID_ARGUMENT')).message;

describe('exec options', () => {
  it("refuses an unknown option, such as execa's `timeout`, and runs nothing", async () => {
    const { command, ran } = marker();
    const message = await refused({ command, timeout: 3000 });
    expect(message).toMatch(/^Invalid exec options: unknown option `timeout` \(exec takes `command`, .*`timeoutMs`/);
    expect(ran()).toBe(false);
  });

  it('names each wrong option, what it expected and what came, with its type', async () => {
    expect(await refused({ command: 42 })).toBe(
      'Invalid exec options: `command`: expected a command line (a string) or an argv (an array of strings), got 42 (number)',
    );
    expect(await refused({ command: 'true', timeoutMs: '1000' })).toBe(
      'Invalid exec options: `timeoutMs`: expected a finite number of milliseconds, got "1000" (string)',
    );
    expect(await refused({ command: 'true', timeoutMs: -5 })).toMatch(/`timeoutMs`: expected a positive number/);
    expect(await refused({ command: 'true', timeoutMs: Infinity })).toMatch(
      /`timeoutMs`: expected a finite number of milliseconds, got Infinity \(number\)/,
    );
    expect(await refused({ command: 'true', signal: 'stop' })).toBe(
      'Invalid exec options: `signal`: expected an AbortSignal, got "stop" (string)',
    );
    expect(await refused({ command: ['ls', 7] })).toMatch(/`command`: expected a command line/);
    expect(await refused({ command: 'true', env: { inherit: 'some' } })).toMatch(
      /`env.inherit`: expected all, core or none/,
    );
    expect(await refused({ command: 'true', sandbox: { mode: 'read-only' } })).toMatch(/`sandbox.network`/);
  });

  it('names every wrong option at once, and a missing command', async () => {
    expect(await refused({ cwd: 3, login: 'yes' })).toBe(
      'Invalid exec options: `command`: is required; `cwd`: expected a directory path (a string), got 3 (number); `login`: expected true or false, got "yes" (string)',
    );
  });

  it('refuses what is not an object', async () => {
    expect(await refused('ls')).toBe('Invalid exec options: expected an object, got "ls" (string)');
    expect(await refused(undefined)).toBe('Invalid exec options: expected an object, got undefined');
  });

  it('takes every option it documents', async () => {
    const seen: string[] = [];
    const result = await exec({
      command: 'cat; echo "$X"',
      cwd: tmpdir(),
      env: { set: { X: 'set' } },
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      shell: '/bin/bash',
      login: false,
      input: 'typed\n',
      onOutput: (text) => seen.push(text),
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'typed\nset\n', truncated: false });
    expect(seen.join('')).toBe('typed\nset\n');
  });
});
