import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { nativePtyProblem } from '../../src/spawn/pty-process.js';

// pty-process.ts drives node-pty's private native module (src/spawn/node-pty-native.d.ts): it refuses any node-pty
// but the version whose calls it makes, with a message that says what to install.
const fn = () => undefined;

describe('nativePtyProblem', () => {
  it('accepts node-pty 1.1.0 with its fork and resize', () => {
    expect(nativePtyProblem('1.1.0', { fork: fn, resize: fn, open: fn })).toBeUndefined();
  });

  it('refuses another version, 1.2.0 whose resize changed among them, and says what to install', () => {
    for (const version of ['1.2.0', '1.2.0-beta.3', '1.0.0']) {
      expect(nativePtyProblem(version, { fork: fn, resize: fn, open: fn })).toMatch(
        new RegExp(`node-pty ${version.replaceAll('.', '\\.')} is installed: install 1\\.1\\.0 exactly \\(npm ci`),
      );
    }
  });

  it('names the package it found, node-pty built from source among them', () => {
    expect(nativePtyProblem('1.2.0', { fork: fn, resize: fn, open: fn }, 'node-pty')).toMatch(
      /but node-pty 1\.2\.0 is installed: install 1\.1\.0 exactly \(npm ci, or npm install node-pty@1\.1\.0\)/,
    );
  });

  it('refuses a module without the calls', () => {
    expect(nativePtyProblem('1.1.0', { fork: fn })).toMatch(/has no fork, open or resize: reinstall it/);
  });

  it('finds the installed node-pty to be the pinned one, as package.json pins it', () => {
    const require = createRequire(import.meta.url);
    const pinned = (require('../../package.json') as { dependencies: Record<string, string> }).dependencies[
      '@lydell/node-pty'
    ];
    expect(pinned).toBe('1.1.0');
    expect((require('@lydell/node-pty/package.json') as { version: string }).version).toBe(pinned);
  });
});
