import { describe, expect, it } from 'vitest';
import { formatResponse, type ExecResponse } from '../../src/index.js';

const exited: ExecResponse = {
  chunkId: '3fa9c2',
  wallTimeSeconds: 0.5123,
  output: '<output>',
  originalTokenCount: 57,
  exitCode: 0,
  state: 'exited',
  warnings: [],
};

const running: ExecResponse = {
  chunkId: '3fa9c2',
  wallTimeSeconds: 0.5123,
  output: '<output>',
  originalTokenCount: 57,
  sessionId: 12345,
  state: 'running',
  warnings: [],
};

const SESSION_WARNING =
  'Warning: The maximum number of unified exec processes you can keep open is 60 and you currently have 61 processes open. Reuse older processes or close them to prevent automatic pruning of old processes';

describe('formatResponse', () => {
  it('writes an exited process exactly as Codex does', () => {
    expect(formatResponse(exited)).toBe(
      'Chunk ID: 3fa9c2\nWall time: 0.5123 seconds\nProcess exited with code 0\nOriginal token count: 57\nOutput:\n<output>',
    );
  });

  it('writes a running process with its session id in place of the exit line', () => {
    expect(formatResponse(running)).toBe(
      'Chunk ID: 3fa9c2\nWall time: 0.5123 seconds\nProcess running with session ID 12345\nOriginal token count: 57\nOutput:\n<output>',
    );
  });

  it('shows the wall time with exactly four decimals', () => {
    expect(formatResponse({ ...exited, wallTimeSeconds: 0.05 })).toContain('\nWall time: 0.0500 seconds\n');
    expect(formatResponse({ ...exited, wallTimeSeconds: 12.345678 })).toContain('\nWall time: 12.3457 seconds\n');
  });

  it('reports a non-zero exit code and keeps empty output after the Output line', () => {
    const text = formatResponse({ ...exited, exitCode: 137, output: '' });
    expect(text).toContain('\nProcess exited with code 137\n');
    expect(text.endsWith('\nOutput:\n')).toBe(true);
  });

  it("writes Codex's text alone by default: the state is not in it", () => {
    const text = formatResponse({ ...running, state: 'waiting_for_input', secretPrompt: true });
    expect(text).toBe(
      [
        'Chunk ID: 3fa9c2',
        'Wall time: 0.5123 seconds',
        'Process running with session ID 12345',
        'Original token count: 57',
        'Output:',
        '<output>',
      ].join('\n'),
    );
  });

  it('puts the waiting and password lines right after the running line when asked for them', () => {
    const text = formatResponse({ ...running, state: 'waiting_for_input', secretPrompt: true }, { stateLines: true });
    expect(text).toBe(
      [
        'Chunk ID: 3fa9c2',
        'Wall time: 0.5123 seconds',
        'Process running with session ID 12345',
        'Process is waiting for input',
        'Terminal echo is off (password prompt)',
        'Original token count: 57',
        'Output:',
        '<output>',
      ].join('\n'),
    );
  });

  it('says nothing about waiting for a running process that is not waiting', () => {
    expect(formatResponse(running, { stateLines: true })).not.toContain('waiting');
    expect(formatResponse(running, { stateLines: true })).not.toContain('echo is off');
  });

  it('puts each warning on its own line right before Output', () => {
    const text = formatResponse({ ...running, warnings: [SESSION_WARNING, 'Warning: second'] });
    expect(text).toBe(
      [
        'Chunk ID: 3fa9c2',
        'Wall time: 0.5123 seconds',
        'Process running with session ID 12345',
        'Original token count: 57',
        SESSION_WARNING,
        'Warning: second',
        'Output:',
        '<output>',
      ].join('\n'),
    );
  });

  it('keeps multi-line output verbatim', () => {
    expect(formatResponse({ ...exited, output: 'a\nb\n\nc\n' }).endsWith('Output:\na\nb\n\nc\n')).toBe(true);
  });
});
