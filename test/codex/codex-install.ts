// Where the real Codex CLI (from test/clients' package, shared with the client tests) and its offline kit live, and
// whether the Codex interop tests can run on this machine.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENT_BINARIES, staleClient } from '../clients/clients-install.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `../shared/codex-reference` beside the repository: CI runs from a clean clone with `../shared` next to it. */
const CODEX_REFERENCE_DIR = resolve(REPO_ROOT, '../shared/codex-reference');
export const MOCK_MODEL_SERVER = join(CODEX_REFERENCE_DIR, 'mock.js');
export const CODEX_CONFIG = join(CODEX_REFERENCE_DIR, 'home/config.toml');
export const EXEC_SERVER_TAP = join(CODEX_REFERENCE_DIR, 'exec-server/tap.mjs');

/**
 * Undefined when the Codex interop tests can run here, else exactly why not (the tests skip with it).
 * @public bench/lib/elsewhere.mjs loads it with importTestModule, which the dead-export check (knip) cannot follow.
 */
export function codexAvailability(): string | undefined {
  if (!existsSync(CODEX_REFERENCE_DIR)) {
    return `no ${CODEX_REFERENCE_DIR}: the Codex interop tests need ../shared/codex-reference beside the repository`;
  }
  for (const file of [MOCK_MODEL_SERVER, CODEX_CONFIG]) {
    if (!existsSync(file)) return `no ${file} in the Codex reference kit`;
  }
  if (process.platform !== 'linux') return `the Codex interop tests run on Linux only, not ${process.platform}`;
  if (!existsSync(CLIENT_BINARIES.codex)) {
    return `no Codex binary at ${CLIENT_BINARIES.codex}: the real clients are not installed (npm run clients:install)`;
  }
  return staleClient('@openai/codex');
}

/** The Codex binary to run; throws with the reason when the interop tests cannot run here. */
export function codexBinary(): string {
  const reason = codexAvailability();
  if (reason) throw new Error(`Codex CLI unavailable: ${reason}`);
  return CLIENT_BINARIES.codex;
}

/**
 * Why a Codex interop test skips here, or undefined when it runs. CI installs Codex and its kit, so under `CI` this is
 * always undefined: a missing one fails the test instead of skipping it.
 */
export function codexSkipReason(): string | undefined {
  return process.env.CI ? undefined : codexAvailability();
}
