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
