import { describe, expect, it } from 'vitest';
import type { ShellResponse } from '../../src/manager/requests.js';
import { shellResultOutput } from '../../src/tools/output-schemas.js';
import { formatShellResponse, shellDurationSeconds, shellReply } from '../../src/tools/shell-format.js';

// The expected strings are what Codex's own `shell` tool answered for the same commands (Codex CLI 0.100.0 driven
// offline by a scripted model; the pinned Codex, test/clients/package.json, offers only exec_command and formats with
// the same function).

const reply = (response: Partial<ShellResponse>): ShellResponse => ({
  exitCode: 0,
  output: '',
  durationMs: 0,
  timedOut: false,
  ...response,
});

describe('formatShellResponse', () => {
  it('answers a success as one line of JSON: the output, then the exit code and duration', () => {
    expect(formatShellResponse(reply({ output: 'hi\n', durationMs: 12 }))).toBe(
      '{"output":"hi\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
    expect(formatShellResponse(reply({ durationMs: 3 }))).toBe(
      '{"output":"","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
  });

  it('answers a non-zero exit in the same shape, with its code', () => {
    expect(formatShellResponse(reply({ exitCode: 3, output: 'hi\n', durationMs: 204 }))).toBe(
      '{"output":"hi\\n","metadata":{"exit_code":3,"duration_seconds":0.2}}',
    );
  });

  it('answers a timeout with exit code 124 and the timeout line that leads the output', () => {
    const timedOut = reply({
      exitCode: 124,
      output: 'command timed out after 1009 milliseconds\nbefore\n',
      durationMs: 1009,
      timedOut: true,
    });
    expect(formatShellResponse(timedOut)).toBe(
      '{"output":"command timed out after 1009 milliseconds\\nbefore\\n","metadata":{"exit_code":124,"duration_seconds":1.0}}',
    );
  });

  it('rounds the duration to a tenth of a second and always writes a decimal', () => {
    expect(formatShellResponse(reply({ output: 'out\nerr\n', durationMs: 1080 }))).toBe(
      '{"output":"out\\nerr\\n","metadata":{"exit_code":0,"duration_seconds":1.1}}',
    );
    expect(formatShellResponse(reply({ durationMs: 2000 }))).toContain('"duration_seconds":2.0}');
    expect([49, 50, 149, 150, 250, 12_345].map(shellDurationSeconds)).toEqual([0, 0.1, 0.1, 0.2, 0.3, 12.3]);
    expect([-5, Number.NaN].map(shellDurationSeconds)).toEqual([0, 0]);
  });

  it('escapes control characters as Codex does and keeps other text as is', () => {
    expect(formatShellResponse(reply({ output: '\u001b[31mred\u0000nul é' }))).toBe(
      '{"output":"\\u001b[31mred\\u0000nul é","metadata":{"exit_code":0,"duration_seconds":0.0}}',
    );
  });

  it('keeps the head and tail of output over 10000 tokens, behind a warning, and stays valid JSON', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join('');
    const text = formatShellResponse(reply({ exitCode: 2, output: lines }));
    const parsed = JSON.parse(text) as { output: string; metadata: unknown };
    expect(parsed.metadata).toEqual({ exit_code: 2, duration_seconds: 0 });
    expect(parsed.output).toMatch(
      /^Warning: truncated output \(original token count: 27224\)\nTotal output lines: 20000\n\n1\n2\n3\n/,
    );
    expect(parsed.output).toContain('…17224 tokens truncated…');
    expect(parsed.output).toMatch(/\n19999\n20000\n$/);
    expect(Buffer.byteLength(parsed.output)).toBeLessThan(40_200);
  });

  it('takes a smaller budget when asked', () => {
    const text = formatShellResponse(reply({ output: 'x'.repeat(100) }), 10);
    expect(JSON.parse(text).output).toBe(
      `Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\n${'x'.repeat(20)}…15 tokens truncated…${'x'.repeat(20)}`,
    );
  });
});

describe('shellReply', () => {
  it('gives the structured result the same output and duration as the text, and says whether it timed out', () => {
    const response = reply({ exitCode: 124, output: 'command timed out after 500 milliseconds\n', durationMs: 512 });
    const { text, structured } = shellReply({ ...response, timedOut: true });
    expect(structured).toEqual({
      exit_code: 124,
      output: 'command timed out after 500 milliseconds\n',
      duration_seconds: 0.5,
      timed_out: true,
    });
    expect(JSON.parse(text)).toEqual({
      output: structured.output,
      metadata: { exit_code: structured.exit_code, duration_seconds: structured.duration_seconds },
    });
    expect(shellResultOutput.safeParse(structured).success).toBe(true);
  });
});
