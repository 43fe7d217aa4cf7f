import { describe, expect, it } from 'vitest';
import { normalizeAnswers, normalizeCodexText, normalizeReportedSessions } from './normalize.js';

// Answers taken from real runs of the pinned Codex CLI (test/clients/package.json), local and through
// `codex exec-server`.
const ECHO_LOCAL =
  'Chunk ID: d8f8ab\nWall time: 0.0485 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n';
const ECHO_REMOTE =
  'Chunk ID: 8655b9\nWall time: 0.0211 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n';
const PYTHON_RUNNING =
  'Chunk ID: 71da89\nWall time: 1.0014 seconds\nProcess running with session ID 98140\nOriginal token count: 5\n' +
  'Output:\nprint(6*7)\r\n42\r\n>>> ';
const WORK_DIR = '/var/tmp/scratch-codex/r.itKY/work';
const PWD_AND_PID = `Chunk ID: 4e7726\nWall time: 0.0541 seconds\nProcess exited with code 0\nOriginal token count: 12\nOutput:\n${WORK_DIR}\nPID=19074\n`;

describe('normalizeCodexText', () => {
  it('makes the same answer from two runs read the same', () => {
    expect(normalizeCodexText(ECHO_LOCAL)).toBe(normalizeCodexText(ECHO_REMOTE));
  });

  it('replaces the chunk id, the wall time and the session id, and keeps the rest as Codex wrote it', () => {
    expect(normalizeCodexText(PYTHON_RUNNING)).toBe(
      'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess running with session ID <session>\n' +
        'Original token count: 5\nOutput:\nprint(6*7)\r\n42\r\n>>> ',
    );
  });

  it('keeps the original token count, which differs when the outputs differ', () => {
    const longer = ECHO_LOCAL.replace('token count: 2', 'token count: 3').replace('hello\n', 'hello world\n');
    expect(normalizeCodexText(longer)).not.toBe(normalizeCodexText(ECHO_LOCAL));
    expect(normalizeCodexText(longer)).toContain('Original token count: 3\n');
  });

  it('replaces the work folder and a pid printed as PID=<n> in the output', () => {
    expect(normalizeCodexText(PWD_AND_PID, { workDir: WORK_DIR })).toBe(
      'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess exited with code 0\nOriginal token count: 12\n' +
        'Output:\n<workdir>\nPID=<pid>\n',
    );
  });

  it("leaves a command's own output alone where it looks like Codex's header", () => {
    const text = `${ECHO_LOCAL}Chunk ID: abcdef\nWall time: 1.5 seconds\nProcess running with session ID 7\n`;
    expect(normalizeCodexText(text)).toMatch(
      /\nChunk ID: abcdef\nWall time: 1\.5 seconds\nProcess running with session ID 7\n$/,
    );
  });

  it('still tells exit codes and outputs apart', () => {
    const failed =
      'Chunk ID: f9d230\nWall time: 0.1292 seconds\nProcess exited with code 3\nOriginal token count: 2\nOutput:\nhello\n';
    expect(normalizeCodexText(failed)).not.toBe(normalizeCodexText(ECHO_LOCAL));
    expect(normalizeCodexText(ECHO_LOCAL.replace('hello', 'hellO'))).not.toBe(normalizeCodexText(ECHO_LOCAL));
  });

  it('leaves a text without Codex header lines as it is', () => {
    const text = 'No usable execution environment is available.';
    expect(normalizeCodexText(text)).toBe(text);
  });
});

describe('normalizeCodexText on an applied patch', () => {
  // The pinned Codex CLI's answer to `apply_patch <<'EOF' … EOF` typed into exec_command.
  const PATCHED =
    'Wall time: 0.0512 seconds\nOutput:\nExit code: 0\nWall time: 0.1 seconds\nOutput:\n' +
    'Success. Updated the following files:\nA uexec_apply.txt\n';

  it("replaces apply_patch's own wall time too, and nothing in its output", () => {
    expect(normalizeCodexText(PATCHED)).toBe(
      'Wall time: <wall> seconds\nOutput:\nExit code: 0\nWall time: <wall> seconds\nOutput:\n' +
        'Success. Updated the following files:\nA uexec_apply.txt\n',
    );
    const printed = 'Wall time: 0.0512 seconds\nOutput:\nWall time: 3 seconds\n';
    expect(normalizeCodexText(printed)).toBe('Wall time: <wall> seconds\nOutput:\nWall time: 3 seconds\n');
  });
});

describe('normalizeReportedSessions', () => {
  it('replaces a session id the run reported in an error, and keeps one it never did', () => {
    expect(normalizeReportedSessions('write_stdin failed: Unknown process id 58445', [58445])).toBe(
      'write_stdin failed: Unknown process id <session>',
    );
    expect(normalizeReportedSessions('write_stdin failed: Unknown process id 4242424', [58445])).toBe(
      'write_stdin failed: Unknown process id 4242424',
    );
  });

  it("leaves a command's output alone", () => {
    const text = 'Process exited with code 0\nOutput:\n58445\n';
    expect(normalizeReportedSessions(text, [58445])).toBe(text);
  });
});

describe('normalizeAnswers', () => {
  it('replaces the session id the calls carried and normalises each answer', () => {
    const answers = [
      {
        call: { name: 'write_stdin', args: { session_id: 98140, chars: 'print(6*7)\n' } },
        output: PYTHON_RUNNING,
        roundtripMs: 1147,
      },
      { call: { name: 'exec_command', args: { cmd: 'echo hello' } }, output: ECHO_LOCAL, roundtripMs: 283 },
    ];
    expect(normalizeAnswers(answers)).toEqual([
      {
        call: { name: 'write_stdin', args: { session_id: '<session>', chars: 'print(6*7)\n' } },
        output: normalizeCodexText(PYTHON_RUNNING),
      },
      { call: { name: 'exec_command', args: { cmd: 'echo hello' } }, output: normalizeCodexText(ECHO_LOCAL) },
    ]);
  });

  it('keeps a session id of null: the script asked for a session Codex never reported', () => {
    const answers = [
      { call: { name: 'write_stdin', args: { session_id: null, chars: '' } }, output: 'x', roundtripMs: 1 },
    ];
    expect(normalizeAnswers(answers)[0]?.call?.args.session_id).toBeNull();
  });
});
