// Where the real Codex CLI and its offline kit live, and whether the Codex interop tests can run on this machine.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** `../shared/codex-reference` beside the repository: CI runs from a clean clone with `../shared` next to it. */
export const CODEX_REFERENCE_DIR = resolve(REPO_ROOT, '../shared/codex-reference');
export const MOCK_MODEL_SERVER = join(CODEX_REFERENCE_DIR, 'mock.js');
export const CODEX_CONFIG = join(CODEX_REFERENCE_DIR, 'home/config.toml');
export const EXEC_SERVER_TAP = join(CODEX_REFERENCE_DIR, 'exec-server/tap.mjs');

/** The platform packages `@openai/codex` brings its native binary in, by Node's `process.arch` (Linux only). */
const LINUX_TARGETS: Readonly<Record<string, { pkg: string; triple: string }>> = {
  x64: { pkg: '@openai/codex-linux-x64', triple: 'x86_64-unknown-linux-musl' },
  arm64: { pkg: '@openai/codex-linux-arm64', triple: 'aarch64-unknown-linux-musl' },
};

/** The native binary's path for this platform (whether or not it is installed), or undefined if Codex has none. */
function codexBinaryPath(): string | undefined {
  const target = process.platform === 'linux' ? LINUX_TARGETS[process.arch] : undefined;
  // The native binary, not node_modules/.bin/codex: that is a node wrapper that only finds and execs it.
  return target && join(REPO_ROOT, 'node_modules', target.pkg, 'vendor', target.triple, 'bin', 'codex');
}

/** Undefined when the Codex interop tests can run here, else exactly why not (the tests skip with it). */
export function codexAvailability(): string | undefined {
  if (!existsSync(CODEX_REFERENCE_DIR)) {
    return `no ${CODEX_REFERENCE_DIR}: the Codex interop tests need ../shared/codex-reference beside the repository`;
  }
  for (const file of [MOCK_MODEL_SERVER, CODEX_CONFIG]) {
    if (!existsSync(file)) return `no ${file} in the Codex reference kit`;
  }
  const binary = codexBinaryPath();
  if (!binary) return `Codex CLI has no binary for ${process.platform}-${process.arch}`;
  if (!existsSync(binary)) {
    return `no Codex binary at ${binary}: @openai/codex's optional platform package is not installed (npm install)`;
  }
  return undefined;
}

/** The Codex binary to run; throws with the reason when the interop tests cannot run here. */
export function codexBinary(): string {
  const reason = codexAvailability();
  if (reason) throw new Error(`Codex CLI unavailable: ${reason}`);
  return codexBinaryPath() as string;
}
