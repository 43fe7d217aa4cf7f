import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PatchParseError, parsePatch } from '../patch/parse-patch.js';
import { parseInvocation } from '../patch/invocation.js';
import { detectDenial, type SandboxDenial } from '../sandbox/denial.js';
import { isSandboxed, type SandboxPolicy } from '../sandbox/policy.js';
import type { EnvPolicy } from '../spawn/env.js';
import type { Executor } from '../spawn/types.js';
import { patchRejected, spawnFailed } from './errors.js';
import { retriedNote, type CommandGate, type GateCall } from './gate.js';
import { newChunkId } from './ids.js';
import { exec } from './one-shot.js';
import type { ExecResponse } from './types.js';

/**
 * The applier program (src/patch/apply-main.ts, built): the same relative path from src/manager/ (tests, which build
 * first) and dist/manager/.
 */
const PATCH_APPLIER_PATH = fileURLToPath(new URL('../../dist/patch/apply-main.js', import.meta.url));
/** The applier's exit code for a patch it refused before writing anything (see apply-main.ts). */
const REJECTED_EXIT_CODE = 2;
const APPLIER_TIMEOUT_MS = 60_000;
/**
 * The applier's report of a file it may not write. In a sandbox that is the sandbox's doing: outside the writable
 * roots the mount is read-only (EROFS), and a protected name that does not exist yet (`.git`) is masked (EACCES).
 */
const REFUSED_WRITE =
  /^Failed to (?:write file|delete file|remove original) .*: (?:Read-only file system|Permission denied|Operation not permitted) \(os error \d+\)$/m;

/** A patch a command asked for: its text and the directory its relative paths resolve against. */
export interface PatchRequest {
  patch: string;
  dir: string;
}

/**
 * The patch `cmd` asks for, as Codex recognises one (see patch/invocation.ts), with its paths resolving against
 * `cwd` (or the `cd` before it); undefined when `cmd` is an ordinary command. Throws PATCH_REJECTED, as Codex
 * answers, for a patch that does not parse and for a bare patch typed as a command.
 */
export function patchRequest(cmd: string, cwd: string): PatchRequest | undefined {
  const invocation = parseInvocation(cmd);
  if (!invocation) {
    if (looksLikePatch(cmd)) {
      throw patchRejected('patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]');
    }
    return undefined;
  }
  try {
    parsePatch(invocation.patch);
  } catch (error) {
    if (error instanceof PatchParseError) throw patchRejected(error.message);
    throw error;
  }
  return { patch: invocation.patch, dir: invocation.cd === undefined ? cwd : resolve(cwd, invocation.cd) };
}

/** What the sandbox refused the applier, if anything: a command's denials, and a write the applier reports refused. */
function patchDenial(sandbox: SandboxPolicy | undefined, exitCode: number, output: string): SandboxDenial | undefined {
  const denial = detectDenial(sandbox, exitCode, output);
  if (denial || !isSandboxed(sandbox) || exitCode === 0) return denial;
  const refused = REFUSED_WRITE.exec(output);
  return refused ? { kind: 'write', evidence: refused[0] } : undefined;
}

function looksLikePatch(cmd: string): boolean {
  // No parse for an ordinary command: only text that begins as a patch (or its heredoc) may be one.
  if (!/^\s*(?:\*\*\* Begin Patch|<<['"]?EOF)/.test(cmd)) return false;
  try {
    parsePatch(cmd);
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies an admitted patch with the applier program, inside `sandbox` (undefined: outside any), exactly as a
 * command would run there: the kernel decides what it may read and write. A sandbox refusal goes through the
 * approval policy as any command's does (on-failure: asked, then applied again outside the sandbox).
 */
export async function applyPatchCall(
  gate: CommandGate,
  run: {
    call: GateCall;
    /** The command planned for outside the sandbox, for the on-failure question. */
    outside: () => GateCall;
    request: PatchRequest;
    sandbox: SandboxPolicy | undefined;
    env: EnvPolicy | undefined;
    started: number;
    /** Where the applier runs: an executor on this machine (one that appliesPatches). */
    executor: Executor;
  },
): Promise<ExecResponse> {
  if (!existsSync(PATCH_APPLIER_PATH)) {
    throw spawnFailed(`the patch applier ${PATCH_APPLIER_PATH} is missing; build the package (npm run build)`);
  }
  const attempt = async (sandbox: SandboxPolicy | undefined) => {
    const outcome = await exec({
      command: [process.execPath, PATCH_APPLIER_PATH],
      cwd: run.call.plan.cwd,
      input: JSON.stringify({ patch: run.request.patch, cwd: run.request.dir }),
      timeoutMs: APPLIER_TIMEOUT_MS,
      ...(run.env ? { env: run.env } : {}),
      ...(sandbox ? { sandbox } : {}),
      executor: run.executor,
    });
    if (outcome.exitCode === REJECTED_EXIT_CODE) throw patchRejected(outcome.stderr.trim());
    return outcome;
  };
  let outcome = await attempt(run.sandbox);
  const warnings: string[] = [];
  const denial = patchDenial(run.sandbox, outcome.exitCode, outcome.aggregatedOutput);
  if (denial) {
    const next = await gate.afterDenial(run.outside, denial);
    if (next.retry) {
      outcome = await attempt(undefined);
      warnings.push(retriedNote(denial));
    } else warnings.push(next.note);
  }
  const output = outcome.aggregatedOutput;
  return {
    chunkId: newChunkId(),
    wallTimeSeconds: (performance.now() - run.started) / 1000,
    output,
    originalTokenCount: Math.ceil(Buffer.byteLength(output) / 4),
    exitCode: outcome.exitCode,
    state: 'exited',
    warnings,
    patch: { durationMs: outcome.durationMs },
  };
}
