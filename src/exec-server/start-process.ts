import { isSandboxed, type SandboxPolicy } from '../sandbox/policy.js';
import { buildEnv } from '../spawn/env.js';
import type { ExecProcess, ProcessSpawner, SpawnOptions } from '../spawn/types.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import { MAX_TERMINAL_DIMENSION } from './limits.js';
import type { SandboxType } from './protocol.js';
import { RpcError, invalidParams, spawnError } from './rpc-error.js';
import { checkStart } from './start-check.js';
import { fromWireSandbox } from './sandbox-wire.js';
import type { ExecEnvPolicy, StartParams } from './schemas.js';

/** What a pty child gets when its environment names no shell (as the real server does). */
const PTY_SHELL = '/bin/bash';

/**
 * The child's environment: `env` exactly, or, with `envPolicy`, the server's own environment filtered as our
 * buildEnv does (credential-like names dropped unless `ignoreDefaultExcludes`), then `set`, then `env` on top. Our
 * session variables (NO_COLOR, TERM=dumb, ...) are not added: a Codex client sends its own in `env`.
 */
function wireEnv(
  env: Readonly<Record<string, string>>,
  policy: ExecEnvPolicy | undefined,
  serverEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  if (policy === undefined) return { ...env };
  const base = buildEnv(
    {
      inherit: policy.inherit,
      keepSecrets: policy.ignoreDefaultExcludes,
      exclude: policy.exclude,
      ...(policy.includeOnly.length > 0 ? { includeOnly: policy.includeOnly } : {}),
      set: policy.set,
    },
    serverEnv,
    { sessionEnv: false },
  );
  return { ...base, ...env };
}

/** `value` if it is a usable terminal dimension (1 to MAX_TERMINAL_DIMENSION), else a -32602 naming `name`. */
export function terminalSize(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (value < 1 || value > MAX_TERMINAL_DIMENSION) {
    throw invalidParams(`\`${name}\` must be between 1 and ${MAX_TERMINAL_DIMENSION}, got ${value}`);
  }
  return value;
}

/** A started process, the sandbox it runs in, and what to answer for it. */
export interface StartedProcess {
  process: ExecProcess;
  sandbox: SandboxPolicy | undefined;
  sandboxType: SandboxType;
}

/**
 * Starts the process `params` describe with `executor`, or throws the RpcError the real server would answer:
 * -32602 for empty argv or a sandbox object it cannot read, -32603 with `data.kind` when the program or its working
 * folder cannot be used, in the real server's words for pipes and for terminals (start-check.ts), other spawn
 * failures with their own kind (spawnError).
 */
export async function startProcess(
  params: StartParams,
  executor: ProcessSpawner,
  serverEnv: Readonly<Record<string, string | undefined>>,
): Promise<StartedProcess> {
  const { argv, cwd, tty } = params;
  if (argv.length === 0) throw invalidParams('argv must not be empty');
  const cols = terminalSize(params.cols, DEFAULT_COLS, 'cols');
  const rows = terminalSize(params.rows, DEFAULT_ROWS, 'rows');
  let sandbox: SandboxPolicy | undefined;
  try {
    sandbox = fromWireSandbox(params.sandbox as Parameters<typeof fromWireSandbox>[0], cwd);
  } catch (error) {
    throw invalidParams((error as Error).message);
  }
  if (!isSandboxed(sandbox)) sandbox = undefined;
  const env = wireEnv(params.env, params.envPolicy, serverEnv);
  if (tty && env.SHELL === undefined) env.SHELL = PTY_SHELL;
  // Checked here for the sandbox too: it sees this machine's files, and bwrap would only say so on stderr.
  const folder = checkStart(argv[0]!, env, cwd, tty);
  const arg0 = params.arg0;
  const options: SpawnOptions = {
    argv,
    cwd: folder,
    env,
    tty,
    ...(!tty && params.pipeStdin ? { pipeStdin: true } : {}),
    ...(arg0 !== undefined ? { arg0 } : {}),
    ...(tty ? { cols, rows } : {}),
    ...(sandbox !== undefined ? { sandbox } : {}),
  };
  try {
    await executor.prepareSpawn?.(options);
    const process = await executor.spawn(options);
    return { process, sandbox, sandboxType: sandbox === undefined ? 'none' : 'linuxSeccomp' };
  } catch (error) {
    if (error instanceof RpcError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (sandbox !== undefined && code === undefined) {
      throw spawnError(error, `unable to start the sandbox: ${(error as Error).message}`);
    }
    throw spawnError(error);
  }
}
