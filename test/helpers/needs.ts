// What a test needs from the machine beyond Node, git and a C toolchain, and how it says so when that is missing:
// skipped, with one line naming the tool and how to install it. Under CI (.ci/run installs every one of them) a
// missing tool is never a reason to skip: the test runs and fails instead.
import { accessSync, constants, statSync } from 'node:fs';
import { basename } from 'node:path';
import { findExecutable } from '../../src/util/executable.js';

/** Debian's package for each tool the suites use. */
const PACKAGES: Readonly<Record<string, string>> = {
  bwrap: 'bubblewrap',
  chromium: 'chromium',
  gdb: 'gdb',
  ipython3: 'ipython3',
  podman: 'podman',
  socat: 'socat',
  zsh: 'zsh',
  gcc: 'gcc',
  clang: 'clang',
  make: 'make',
  ip: 'iproute2',
  strace: 'strace',
  'aarch64-linux-gnu-gcc': 'gcc-aarch64-linux-gnu',
  'qemu-aarch64-static': 'qemu-user-static',
};

/** A program that can be run: a file with an execute bit for us (a /dev/null bound over it is not). */
function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Why a test needing `tools` (names looked up in PATH, or absolute paths) is skipped here, e.g. `needs gdb (apt-get
 * install gdb)`; undefined when every one is here, and always under CI.
 */
export function missingTools(...tools: string[]): string | undefined {
  if (process.env.CI) return undefined;
  const missing = tools.filter((tool) =>
    tool.startsWith('/') ? !runnable(tool) : findExecutable(tool, process.env.PATH) === undefined,
  );
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((tool) => PACKAGES[basename(tool)] ?? basename(tool)))];
  return `needs ${missing.join(', ')} (apt-get install ${packages.join(' ')})`;
}

/** `title`, and why it is skipped when it is. */
export const titled = (title: string, skip: string | undefined) => (skip ? `${title} (skipped: ${skip})` : title);
