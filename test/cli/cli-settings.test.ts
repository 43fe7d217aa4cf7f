import { describe, expect, it } from 'vitest';
import { FLAG_TABLES } from '../../src/cli/cli-settings.js';
import { resolveManagerOptions } from '../../src/cli/manager-config.js';
import { parseCli } from '../../src/cli/parse-args.js';
import { defaultText, flagUsage, getAt, setAt, type SettingLeaf } from '../../src/cli/setting-table.js';
import { usage } from '../../src/cli/usage.js';

// Driven by the tables, so a new setting is covered without a new test; hand-written cases keep them honest.

const help = usage('0.0.0', ['unified-exec', 'mcp']);
/** --help with each run of spaces and line breaks made one space: a wrapped description reads as one line. */
const flatHelp = help.replace(/\s+/g, ' ');

/** A valid value for `leaf` as typed after its flag, and what it should become. */
function sample(leaf: SettingLeaf): { argv: string[]; value: unknown } {
  const flag = `--${leaf.meta.flag}`;
  switch (leaf.kind) {
    case 'boolean':
      // A negated flag (--no-shell-snapshot) turns its setting off.
      return { argv: [flag], value: !leaf.meta.negatedFlag };
    case 'number':
      return { argv: [flag, '7'], value: 7 };
    case 'list': {
      // A list of names from a fixed set (--tool) takes two of them; other lists take any text.
      const element = (leaf.base._zod.def as { element?: { _zod: { def: { entries?: Record<string, string> } } } })
        .element;
      const names = Object.values(element?._zod.def.entries ?? {}).slice(-2);
      // Domains must look like domains; other text lists take globs.
      const [a = 'A_*', b = 'B'] = leaf.meta.flag === 'allowed-domain' ? ['example.com', '*.example.org'] : names;
      return { argv: [flag, a, flag, b], value: [a, b] };
    }
    case 'map':
      // Executors map names to URLs (which may hold `=` themselves); other maps take any text.
      return leaf.meta.flag === 'executor'
        ? {
            argv: [flag, 'A=local', flag, 'B=ws://10.0.0.2:8700?token-file=/t'],
            value: { A: 'local', B: 'ws://10.0.0.2:8700?token-file=/t' },
          }
        : { argv: [flag, 'A=1', flag, 'B=x=y'], value: { A: '1', B: 'x=y' } };
    default: {
      const entries = (leaf.base._zod.def as { entries?: Record<string, string> }).entries;
      const text = entries === undefined ? 'some-text' : (Object.values(entries).at(-1) as string);
      return { argv: [flag, text], value: text };
    }
  }
}

const flagged = (leaves: SettingLeaf[]) => leaves.filter((leaf) => leaf.meta.flag !== undefined);
const all = Object.values(FLAG_TABLES).flat();

describe('--help', () => {
  it.each(flagged(all).map((leaf) => [leaf.name, leaf] as const))('lists %s with its flag and default', (_, leaf) => {
    expect(help).toMatch(new RegExp(`^  ${escape(flagUsage(leaf) ?? '')}\\s`, 'm'));
    expect(flatHelp).toContain(`(default: ${defaultText(leaf)})`);
  });

  it('shows the defaults of the constants they come from', () => {
    for (const line of [
      '--port N port to listen on; 0 picks a free port and prints it (default: 8765)',
      '(default: 127.0.0.1)',
      'without a request or a call in flight (default: 1800)',
      '--yield-ms MS milliseconds to wait before each reply while the command runs (default: 10000)',
      '(default: $UNIFIED_EXEC_TOKEN, else a random token made at start and printed)',
      'serve: across all its clients, each pruning only its own (default: 64)',
      '--shell PATH shell for calls that name none (default: $SHELL, else /bin/bash)',
    ]) {
      expect(flatHelp).toContain(line);
    }
  });

  it('keeps every line within 100 columns, apart from the stdio setup lines that hold a path', () => {
    const options = help.slice(0, help.indexOf('Stdio setup:'));
    for (const line of options.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('every flag reaches its setting', () => {
  it.each(flagged(FLAG_TABLES.manager).map((leaf) => [leaf.name, leaf] as const))('manager: %s', (_, leaf) => {
    const { argv, value } = sample(leaf);
    const command = parseCli(['mcp', ...argv]);
    if (command.kind !== 'mcp') throw new Error('not mcp');
    const expected = {};
    setAt(expected, leaf.path, value);
    expect(resolveManagerOptions(command.manager)).toEqual(expected);
  });

  it.each([
    ...flagged(FLAG_TABLES.mcp).map((leaf) => ['mcp', leaf.name, leaf] as const),
    ...flagged(FLAG_TABLES.serve).map((leaf) => ['serve', leaf.name, leaf] as const),
    ...flagged(FLAG_TABLES.run).map((leaf) => ['run', leaf.name, leaf] as const),
  ])('%s: %s', (command, _, leaf) => {
    const { argv, value } = sample(leaf);
    const parsed = parseCli([command, ...argv, ...(command === 'run' ? ['--', 'true'] : [])]);
    expect(getAt(parsed, leaf.path)).toEqual(value);
  });

  it('maps a few flags as written by hand', () => {
    const options = (...argv: string[]) => {
      const command = parseCli(['mcp', ...argv]);
      return command.kind === 'mcp' ? resolveManagerOptions(command.manager) : undefined;
    };
    expect(options('--max-sessions', '5')).toEqual({ maxSessions: 5 });
    expect(options('--shell', '/bin/zsh')).toEqual({ defaultShell: '/bin/zsh' });
    expect(options('--env-set', 'A=1', '--env-set', 'B=2')).toEqual({ env: { set: { A: '1', B: '2' } } });
    expect(options('--env-inherit', 'none', '--env-keep-secrets')).toEqual({
      env: { inherit: 'none', keepSecrets: true },
    });
    expect(parseCli(['serve', '--idle-timeout-s', '60'])).toMatchObject({ idleTimeoutS: 60 });
    expect(parseCli(['serve', '--disconnect-grace-s', '5'])).toMatchObject({ disconnectGraceS: 5 });
  });
});
