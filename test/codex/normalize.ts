// Makes two runs of the same Codex script compare equal: what differs from run to run by design (chunk ids, wall
// times, session ids, pids, the work folder) becomes a placeholder; everything else, "Original token count"
// included, stays as Codex wrote it.
import type { CodexAnswer } from './codex-driver.js';

export interface NormalizeContext {
  /** The run's work folder: `pwd` and error messages print it, and it differs from run to run. */
  readonly workDir?: string;
}

/** Codex's header lines, before `Output:`; the placeholders replace only these, never a command's own output. */
function normalizeHeader(header: string): string {
  return (
    header
      // A random 6-hex-digit id per answer.
      .replace(/^Chunk ID: [0-9a-f]+$/gm, 'Chunk ID: <chunk>')
      // Measured: for a live session the whole yield plus scheduling, for an exit however long the command took.
      .replace(/^Wall time: \d+(?:\.\d+)? seconds$/gm, 'Wall time: <wall> seconds')
      // Codex picks session ids at random.
      .replace(/^Process running with session ID \d+$/gm, 'Process running with session ID <session>')
  );
}

/** The same answer from a different run reads the same after this. */
export function normalizeCodexText(text: string, context: NormalizeContext = {}): string {
  // The folder first: its random name must not be half-matched by the patterns below.
  const withoutFolder = context.workDir ? text.split(context.workDir).join('<workdir>') : text;
  // Commands that report their pid print it as `PID=<n>`, as the project's other tests do.
  const withPids = withoutFolder.replace(/\bPID=\d+/g, 'PID=<pid>');
  const bodyAt = /^Output:\n/m.exec(withPids)?.index ?? withPids.length;
  // An applied patch nests apply_patch's own result, with its own wall time (to 0.1 s), under the header.
  const body = withPids
    .slice(bodyAt)
    .replace(/^(Output:\nExit code: -?\d+\n)Wall time: \d+(?:\.\d+)? seconds\n/, '$1Wall time: <wall> seconds\n');
  return normalizeHeader(withPids.slice(0, bodyAt)) + body;
}

/** A model call and answer pair, as compared across runs: the call's session id and the answer's text normalised. */
export interface NormalizedAnswer {
  readonly call: { readonly name: string; readonly args: Record<string, unknown> } | undefined;
  readonly output: string;
}

export function normalizeAnswers(answers: readonly CodexAnswer[], context: NormalizeContext = {}): NormalizedAnswer[] {
  return answers.map(({ call, output }) => ({
    call: call && {
      name: call.name,
      // The fake model server filled in the session id Codex reported (null if none was).
      args: typeof call.args.session_id === 'number' ? { ...call.args, session_id: '<session>' } : call.args,
    },
    output: normalizeCodexText(output, context),
  }));
}

/**
 * A session id the run reported (`Process running with session ID <n>`) that comes back in an error's text
 * (`Unknown process id <n>`) becomes `<session>`, in the lines before `Output:` only. Any other number stays: an id
 * the script made up must read the same in both runs.
 */
export function normalizeReportedSessions(text: string, reported: readonly number[]): string {
  if (reported.length === 0) return text;
  const bodyAt = /^Output:\n/m.exec(text)?.index ?? text.length;
  const ids = new RegExp(`\\b(?:${reported.join('|')})\\b`, 'g');
  return text.slice(0, bodyAt).replace(ids, '<session>') + text.slice(bodyAt);
}
