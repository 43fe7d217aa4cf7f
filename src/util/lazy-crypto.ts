// node:crypto, loaded on first use: as an ES module import it costs about 12 ms, more than anything else of ours
// before a server's first answer, where nothing needs it (a token is compared, a file named, only later).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let loaded: typeof import('node:crypto') | undefined;

/** node:crypto, loaded the first time it is asked for. */
export const nodeCrypto = (): typeof import('node:crypto') =>
  (loaded ??= require('node:crypto') as typeof import('node:crypto'));
