// The client set-up lines as README.md (and docs/clients.md, for Claude Code headless) show them, so the interop
// tests follow the docs and they cannot drift.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../codex/codex-install.js';

/** The README's placeholders for where the user's checkout is and where `npm start` listens. */
const README_CHECKOUT = '/path/to/unified-exec';
const README_URL = 'http://127.0.0.1:8765/mcp';

export interface ClientLines {
  /** `codex mcp add …` for stdio, then for HTTP: shell lines, comments and all. */
  readonly codexAdd: { readonly stdio: string; readonly http: string };
  /** The TOML lines to add under the table `codex mcp add` wrote. */
  readonly codexToml: readonly string[];
  readonly claudeAdd: { readonly stdio: string; readonly http: string };
  /** The headless `claude -p …` line. */
  readonly claudeHeadless: string;
  /** The settings (`~/.claude/settings.json`) with the Elicitation hook that answers approvals headless. */
  readonly claudeSettings: string;
}

/** The body of the first fenced block of `lang` after the heading `heading`. */
function fencedAfter(markdown: string, heading: string, lang: string, nth = 0): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no heading ${JSON.stringify(heading)}`);
  const blocks = [...markdown.slice(start).matchAll(new RegExp(`\\n\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g'))];
  const block = blocks[nth]?.[1];
  if (block === undefined) throw new Error(`README has no ${lang} block #${nth} after ${heading}`);
  return block;
}

/** A block's shell commands: a line that ends in a backslash goes on with the next (the shell runs them so). */
function shellCommands(block: string): string[] {
  return block.split(/(?<!\\)\n/);
}

function pick(commands: readonly string[], test: (command: string) => boolean, what: string): string {
  const found = commands.filter(test);
  if (found.length !== 1) throw new Error(`expected one README line for ${what}, found ${found.length}`);
  return found[0] as string;
}

/**
 * Reads the client lines from `markdown` (README.md by default) and `clients` (docs/clients.md by default); throws
 * naming what it could not find.
 */
export function readmeClientLines(
  markdown = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'),
  clients = readFileSync(join(REPO_ROOT, 'docs/clients.md'), 'utf8'),
): ClientLines {
  const codex = shellCommands(fencedAfter(markdown, '### Codex CLI', 'sh'));
  const claude = shellCommands(fencedAfter(markdown, '### Claude Code', 'sh'));
  const claudeHeadless = shellCommands(fencedAfter(clients, '## Claude Code headless', 'sh'));
  const isAdd = (client: string) => (line: string) => line.startsWith(`${client} mcp add `);
  return {
    codexAdd: {
      stdio: pick(codex, (l) => isAdd('codex')(l) && !l.includes('--url'), 'codex mcp add (stdio)'),
      http: pick(codex, (l) => isAdd('codex')(l) && l.includes('--url'), 'codex mcp add (HTTP)'),
    },
    codexToml: fencedAfter(markdown, '### Codex CLI', 'toml').split('\n'),
    claudeAdd: {
      stdio: pick(claude, (l) => isAdd('claude')(l) && !l.includes('--transport http'), 'claude mcp add (stdio)'),
      http: pick(claude, (l) => isAdd('claude')(l) && l.includes('--transport http'), 'claude mcp add (HTTP)'),
    },
    claudeHeadless: pick(claudeHeadless, (l) => /^([A-Z_]+=\S+ )*claude -p /.test(l), 'claude -p'),
    claudeSettings: fencedAfter(clients, '## Claude Code headless', 'json'),
  };
}

/** A README line with its placeholders filled in: this checkout, and the URL a test's server listens on. */
export function fillPlaceholders(line: string, checkout: string, url?: string): string {
  const filled = line.replaceAll(README_CHECKOUT, checkout);
  return url === undefined ? filled : filled.replaceAll(README_URL, url);
}
