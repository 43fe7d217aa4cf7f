import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWorkdir } from '../../src/spawn/resolve.js';
import { findExecutable } from '../../src/util/executable.js';

const dir = mkdtempSync(join(tmpdir(), 'ue-resolve-'));
const plainFile = join(dir, 'not-executable');
writeFileSync(plainFile, 'echo hi\n', { mode: 0o644 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findExecutable', () => {
  it('finds an absolute path to an executable', () => {
    expect(findExecutable('/bin/bash', '')).toBe('/bin/bash');
  });

  it('looks a bare name up in PATH', () => {
    expect(findExecutable('bash', `/no/such/dir:/bin`)).toBe('/bin/bash');
  });

  it('finds nothing for a missing shell, a directory or a file that is not executable', () => {
    expect(findExecutable('/no/such/shell', process.env.PATH)).toBeUndefined();
    expect(findExecutable('bash', undefined)).toBeUndefined();
    expect(findExecutable(dir, process.env.PATH)).toBeUndefined();
    expect(findExecutable(plainFile, process.env.PATH)).toBeUndefined();
  });
});

describe('resolveWorkdir', () => {
  it('keeps an absolute directory and resolves a relative one against the base', () => {
    expect(resolveWorkdir(dir, '/')).toBe(dir);
    expect(resolveWorkdir('bin', '/')).toBe('/bin');
  });

  it('names the path when the directory does not exist', () => {
    expect(() => resolveWorkdir('/no/such/dir', '/')).toThrow('working directory /no/such/dir does not exist');
  });

  it('names the path when it is not a directory', () => {
    expect(() => resolveWorkdir(plainFile, '/')).toThrow(`working directory ${plainFile} is not a directory`);
  });
});
