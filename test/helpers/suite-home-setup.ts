// vitest globalSetup: one HOME for the whole run, made before any test file and removed after the last. Its startup
// files are empty, so a shell the suite starts reads none of the machine user's: root's ~/.bashrc here ran
// `pyenv init` (0.7 s a shell) and `pyenv rehash`, whose lock, left by a shell killed mid-rehash, held every later
// shell 60 s. test/helpers/suite-home.ts puts it in each test process's environment.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The suite's own HOME. */
    suiteHome: string;
    /** The HOME of the user running the suite, for the few tools that need theirs (npm's cache and registry). */
    userHome: string;
  }
}

/**
 * Empty on purpose; zsh gets a `.zshrc` so that an interactive zsh does not start its new-user menu (which it runs
 * when it finds none of its startup files).
 */
const STARTUP_FILES = ['.profile', '.bashrc', '.zshrc'];

/**
 * Under /var/tmp, not the temp dir: a home is outside the sandbox's writable roots (the workspace, /tmp), and the
 * sandbox tests check that writing to it is refused.
 */
const PARENT = '/var/tmp';

export default function setup(project: TestProject): () => void {
  const home = mkdtempSync(join(PARENT, 'unified-exec-suite-home-'));
  for (const name of STARTUP_FILES) writeFileSync(join(home, name), '');
  project.provide('suiteHome', home);
  project.provide('userHome', homedir());
  return () => rmSync(home, { recursive: true, force: true });
}
