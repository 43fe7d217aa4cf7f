/**
 * The applier as a program: reads `{"patch": "...", "cwd": "..."}` on stdin and applies it. Run by the manager in
 * the sandbox of the exec_command that asked for the patch, so the kernel, not our checks, decides what it may read
 * and write. stdout: the summary (exit 0); stderr: why not (exit 2: rejected, nothing written; exit 1: failed
 * part-way).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { applyPatch } from './apply-patch.js';

/** Exit codes of the applier, read by the manager. */
export const APPLIED = 0;
export const FAILED = 1;
export const REJECTED = 2;

function main(): void {
  const { patch, cwd } = JSON.parse(readFileSync(0, 'utf8')) as { patch: string; cwd: string };
  const outcome = applyPatch(patch, cwd);
  if (outcome.status === 'applied') {
    process.stdout.write(outcome.summary);
    return;
  }
  process.stderr.write(`${outcome.message}\n`);
  process.exitCode = outcome.status === 'rejected' ? REJECTED : FAILED;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
