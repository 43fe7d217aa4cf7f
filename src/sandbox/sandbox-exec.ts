import { accessSync, constants } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seccompProgram, type SeccompNetwork } from './seccomp.js';

/**
 * Our launcher (native/sandbox-exec.c, built with the addon): inside bubblewrap it installs the seccomp filter,
 * then becomes the command. Same relative path from src/sandbox/ (tests) and dist/sandbox/ (the build).
 */
export const SANDBOX_EXEC_PATH = fileURLToPath(
  new URL('../../build/Release/unified-exec-sandbox-exec', import.meta.url),
);

/** What to tell someone whose launcher was not built. */
export const SANDBOX_EXEC_HELP = `build it with \`npm run build:native\` (node-gyp rebuild, which needs a C compiler) in ${fileURLToPath(new URL('../..', import.meta.url))}`;

/** `path` when the launcher was built there and can run, else undefined. */
export function findSandboxExec(path = SANDBOX_EXEC_PATH): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

const programs = new Map<SeccompNetwork, string>();

/** `argv` run through the launcher `exec` under the seccomp filter for `network`. */
export function seccompArgv(exec: string, network: SeccompNetwork, argv: readonly string[]): string[] {
  let program = programs.get(network);
  if (program === undefined) programs.set(network, (program = seccompProgram(network).toString('base64')));
  return [exec, '--seccomp', program, '--', ...argv];
}
