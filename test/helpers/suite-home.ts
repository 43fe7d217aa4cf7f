// Loaded before every test file (vitest `setupFiles`): the suite's own HOME (made by suite-home-setup.ts), so no
// test depends on the machine user's startup files. The XDG folders and zsh's ZDOTDIR, when the user set them, would
// still point at the user's own: unset, they default to folders in that HOME. BASH_ENV and ENV name a file that
// non-interactive shells read.
import { inject } from 'vitest';

/** Variables that would still lead a program to the user's own files, or make a shell read one. */
const LEADING_HOME = [
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'ZDOTDIR',
  'BASH_ENV',
  'ENV',
];

process.env.HOME = inject('suiteHome');
for (const name of LEADING_HOME) delete process.env[name];

/** The HOME of the user running the suite: only for npm, whose cache and registry settings live there. */
export const userHome = (): string => inject('userHome');
