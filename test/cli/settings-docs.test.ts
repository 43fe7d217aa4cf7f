import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsMarkdown } from '../../src/cli/settings-docs.js';

const README = new URL('../../docs/configuration.md', import.meta.url);

describe('settingsMarkdown', () => {
  it('has a row per setting, named as library option and config key, with flag and default', () => {
    const table = settingsMarkdown();
    expect(table.split('\n')[0]).toBe('| setting | CLI flag | default | meaning |');
    expect(table).toContain('| `maxSessions` | `--max-sessions N` | 64 | ');
    expect(table).toContain('| `defaultShell` | `--shell PATH` | $SHELL, else /bin/bash | ');
    expect(table).toContain('| `env.set` | `--env-set NAME=VALUE` | none | ');
  });

  it('matches the settings table of docs/configuration.md', () => {
    const text = readFileSync(README, 'utf8');
    const between = /^<!-- settings:begin -->\n([\s\S]*?)\n<!-- settings:end -->$/m.exec(text)?.[1];
    expect(between?.trim(), "docs/configuration.md's settings table is out of date: run npm run docs:settings").toBe(
      settingsMarkdown(),
    );
  });
});
