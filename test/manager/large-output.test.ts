import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatResponse } from '../../src/manager/format.js';
import { BASH, useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/**
 * What the pinned Codex CLI's (test/clients/package.json) unified exec answers for the same command (after
 * `Output:\n`), recorded through its CLI.
 */
const codexOutput = (name: string) => readFileSync(new URL(`../fixtures/codex/${name}.txt`, import.meta.url), 'utf8');

/** The reply's lines before `Output:` that Codex also writes, less the chunk id and the wall time. */
function header(text: string): string[] {
  return text
    .slice(0, text.indexOf('Output:\n'))
    .split('\n')
    .filter((line) => /^(Process|Original token count)/.test(line));
}

describe('output over the 1 MiB buffer, as Codex answers it', () => {
  it.each([
    ['seq 1 400000', 'seq-1-400000', 672224],
    ["head -c 3000000 /dev/zero | tr '\\0' a", 'a-3000000', 750000],
  ])('answers `%s` byte for byte as Codex does', async (cmd, fixture, tokens) => {
    const response = await newManager().execCommand({ ...BASH, command: cmd, yieldTimeMs: 10_000 });
    const text = formatResponse(response);
    expect(header(text)).toEqual(['Process exited with code 0', `Original token count: ${tokens}`]);
    expect(text.slice(text.indexOf('Output:\n') + 'Output:\n'.length)).toBe(codexOutput(fixture));
    // The count in the warning is the header's.
    expect(response.output.startsWith(`Warning: truncated output (original token count: ${tokens})\n`)).toBe(true);
  });
});

describe('sessions that print at once', () => {
  // Every terminal is read into one shared buffer: what a session keeps must be copied out of it, never a view that
  // the next read (another session's) writes over.
  it("keep only their own output, in order, each read copied before the other's read", async () => {
    const manager = newManager();
    const flood = (letter: string) =>
      manager.execCommand({
        ...BASH,
        command: `seq 1 300000 | sed s/^/${letter}/`,
        tty: true,
        yieldTimeMs: 20_000,
      });
    const [q, z] = await Promise.all([flood('Q'), flood('Z')]);
    for (const [response, own] of [
      [q, 'Q'],
      [z, 'Z'],
    ] as const) {
      expect(response.exitCode).toBe(0);
      const lines = response.output
        .replace(/\r/g, '')
        .split('\n')
        .filter((line) => /^[QZ]\d+$/.test(line));
      expect(lines.length).toBeGreaterThan(1000);
      expect(lines.filter((line) => line[0] !== own)).toEqual([]);
      // Each number one more than the one before, but where the middle was left out (and a line cut there).
      const jumps = lines.slice(1).filter((line, i) => Number(line.slice(1)) !== Number(lines[i]!.slice(1)) + 1);
      expect(jumps.length).toBeLessThanOrEqual(3);
    }
  });
});
