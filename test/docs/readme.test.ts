import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolDefinitions } from '../../src/index.js';

// The tool table of docs/tools.md is checked against the tool schemas, the one source of each tool's parameters;
// the README's short table names every tool; and every relative link of the README and docs/ must lead to a file
// (and heading) that exists.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = join(ROOT, 'README.md');
const TOOLS = join(ROOT, 'docs/tools.md');
const DOCS = join(ROOT, 'docs');

/** A table row's cells; `\|` inside a cell is not a separator. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The tools table: each row's tool name and its parameters cell. */
function readToolTable(markdown: string): Map<string, string> {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\|\s*tool\s*\|\s*parameters\s*\|/.test(line));
  if (header < 0) throw new Error('docs/tools.md has no table with the header "| tool | parameters | ... |"');
  const rows = new Map<string, string>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [tool = '', parameters = ''] = cells(line);
    rows.set(tool.replace(/^`|`$/g, ''), parameters);
  }
  return rows;
}

interface ParameterEntry {
  /** The text in parentheses after the name: `required`, `default <value>`, or `optional: …`. */
  note: string;
}

/** `` `name` (note) `` entries of a parameters cell, and every backticked name outside the parentheses. */
function readParameters(cell: string): { entries: Map<string, ParameterEntry>; named: string[] } {
  const entries = new Map<string, ParameterEntry>();
  for (const match of cell.matchAll(/`([a-z_]+)` \(([^)]*)\)/g)) {
    entries.set(match[1] as string, { note: (match[2] as string).trim() });
  }
  const outside = cell.replace(/\([^)]*\)/g, '');
  const named = [...outside.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  return { entries, named };
}

/** The value of a `default `…`` note, parsed as JSON, or undefined when the note shows no default. */
function shownDefault(note: string): { value: unknown } | undefined {
  const match = /^default `([^`]*)`$/.exec(note);
  return match ? { value: JSON.parse(match[1] as string) } : undefined;
}

interface InputJsonSchema {
  properties?: Record<string, { default?: unknown }>;
  required?: string[];
}

describe("docs/tools.md's tool table", () => {
  const table = readToolTable(readFileSync(TOOLS, 'utf8'));

  it("has the same tools as the README's short table", () => {
    const readme = readFileSync(README, 'utf8');
    const short = readme.slice(readme.indexOf('| tool | what it does |')).split('\n\n')[0]!;
    const named = [...short.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
    expect(named).toEqual(expect.arrayContaining([...table.keys()]));
    expect(named).toContain('shell');
  });

  it('has one row per tool, and no other', () => {
    expect([...table.keys()].sort()).toEqual(
      toolDefinitions()
        .map((d) => d.name)
        .sort(),
    );
  });

  for (const definition of toolDefinitions()) {
    describe(definition.name, () => {
      const schema = z.toJSONSchema(definition.input, { io: 'input' }) as InputJsonSchema;
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const cell = table.get(definition.name) ?? '';
      const { entries, named } = readParameters(cell);

      it('names every parameter of the schema, and only those', () => {
        expect([...entries.keys()].sort()).toEqual(Object.keys(properties).sort());
        expect(named.sort()).toEqual(Object.keys(properties).sort());
        if (Object.keys(properties).length === 0) expect(cell).toBe('none');
      });

      for (const [name, property] of Object.entries(properties)) {
        it(`shows \`${name}\` as the schema declares it`, () => {
          const note = entries.get(name)?.note;
          expect(note, `${name} has no "(...)" note in docs/tools.md`).toBeDefined();
          if (required.has(name)) {
            expect(note).toBe('required');
          } else if ('default' in property) {
            expect(shownDefault(note ?? ''), `${name} should show (default \`…\`)`).toEqual({
              value: property.default,
            });
          } else {
            expect(note).toMatch(/^optional: /);
          }
        });
      }
    });
  }
});

/** Markdown files whose links are checked: the README and every page of docs/. */
const pages = [
  README,
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...prose.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug((match[1] as string).replace(/`/g, ''))));
}

/** Targets of inline links and images outside code blocks and code spans. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('relative links', () => {
  it('are found in the README', () => {
    expect(relativeLinks(readFileSync(README, 'utf8')).length).toBeGreaterThan(0);
  });

  for (const page of pages) {
    it(`in ${relative(ROOT, page)} lead to files and headings that exist`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(readFileSync(page, 'utf8'))) {
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
        if (!existsSync(target)) {
          broken.push(`${link}: no file ${relative(ROOT, target)}`);
        } else if (
          anchor !== undefined &&
          target.endsWith('.md') &&
          !anchors(readFileSync(target, 'utf8')).has(anchor)
        ) {
          broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
        }
      }
      expect(broken.join('\n')).toBe('');
    });
  }
});
