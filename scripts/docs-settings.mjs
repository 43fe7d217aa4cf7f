#!/usr/bin/env node
// Rewrites docs/configuration.md's settings table (between its settings:begin/end markers) from the settings table in
// src/manager/settings.ts, through the build: `npm run docs:settings`. test/cli/settings-docs.test.ts checks it.
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsMarkdown } from '../dist/cli/settings-docs.js';

const BEGIN = '<!-- settings:begin -->';
const END = '<!-- settings:end -->';
const readme = new URL('../docs/configuration.md', import.meta.url);

const text = readFileSync(readme, 'utf8');
const lines = text.split('\n');
const begin = lines.indexOf(BEGIN);
const end = lines.indexOf(END);
if (begin < 0 || end < begin) {
  process.stderr.write(
    `docs-settings: docs/configuration.md needs a line "${BEGIN}" and, below it, a line "${END}" where the settings table goes\n`,
  );
  process.exit(1);
}
// Blank lines around the table keep it a table of its own, as prettier leaves it.
const next = [...lines.slice(0, begin + 1), '', settingsMarkdown(), '', ...lines.slice(end)].join('\n');
if (next === text) {
  process.stdout.write('docs/configuration.md: settings table already up to date\n');
} else {
  writeFileSync(readme, next);
  process.stdout.write('docs/configuration.md: settings table rewritten\n');
}
