// A client's own HOME (and CODEX_HOME), work folder and PATH for one run, so nothing of this machine's own set-up
// reaches the client and nothing the client writes outlives the test.
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeStateDir } from '../codex/spawned.js';
import { CLIENT_BINARIES } from './clients-install.js';

export interface ClientHome {
  readonly dir: string;
  readonly home: string;
  readonly codexHome: string;
  readonly work: string;
  /** PATH with `codex` and `claude` first, as a user who installed them has it. */
  readonly path: string;
  remove(): void;
}

/** A fresh home whose PATH finds the pinned Codex and the Claude Code build at `claude` (default the pinned one). */
export function makeClientHome(claude: string = CLIENT_BINARIES.claude): ClientHome {
  // Under /var/tmp: Codex refuses to make its helper links under the temp dir.
  const dir = makeStateDir('client-run-');
  const [home, codexHome, work, bin] = ['home', 'codex-home', 'work', 'bin'].map((sub) => join(dir, sub)) as [
    string,
    string,
    string,
    string,
  ];
  for (const folder of [home, codexHome, work, bin]) mkdirSync(folder);
  symlinkSync(CLIENT_BINARIES.codex, join(bin, 'codex'));
  symlinkSync(claude, join(bin, 'claude'));
  return {
    dir,
    home,
    codexHome,
    work,
    path: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
