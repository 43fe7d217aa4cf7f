// The README's client instructions, followed literally with the real Codex CLI and Claude Code driven offline by
// fake model servers: the model reads Codex's own text for exec_command and write_stdin, over stdio and over HTTP.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../codex/codex-install.js';
import { normalizeCodexText } from '../codex/normalize.js';
import { killLeftoverServes, startServe } from '../mcp/cli-process.js';
import { OTHER_SERVER, runClaudeClient } from './claude-client.js';
import { makeClientHome } from './client-home.js';
import { CLAUDE_CODE_BUILDS, clientsAvailability } from './clients-install.js';
import { type ClientRun, runCodexClient } from './codex-client.js';
import type { RecordedResult } from './model-script.js';
import { readmeClientLines } from './readme-lines.js';

const missing = clientsAvailability();
if (missing && process.env.CI === 'true') throw new Error(`CI runs the client interop tests, but: ${missing}`);
if (missing) console.warn(`skipping the client interop tests: ${missing}`);

const checkout = REPO_ROOT.replace(/\/$/, '');
const lines = readmeClientLines();

/** What Codex's unified exec answers to the script, ids and times normalised: the model must read exactly this. */
const CODEX_TEXTS = [
  'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n',
  'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess running with session ID <session>\nOriginal token count: 0\nOutput:\n',
  'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nhi there\r\nhi there\r\n',
];

/**
 * The last call asks to leave the sandbox, so the server asks the client's person (an MCP elicitation). Claude Code
 * answers through the README's Elicitation hook, which approves: the command runs.
 */
const APPROVED_TEXT =
  'Chunk ID: <chunk>\nWall time: <wall> seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\napproved\n';
/** `codex exec` has nobody to ask and declines, as the README says: the model reads that nobody approved it. */
const DECLINED_TEXT =
  'exec_command failed for `echo approved`: Not run: nobody approved this command. The client declined the approval request without a decision (a client that cannot ask a person answers every request so: `codex exec` declines, `claude -p` cancels). Do it without leaving the sandbox, or ask the user to run it.';

/** Each result as the client handed it over, with the texts in it normalised (and nothing else changed). */
function normalized(results: readonly RecordedResult[]): unknown[] {
  const text = (value: unknown): unknown =>
    typeof value === 'string'
      ? normalizeCodexText(value)
      : Array.isArray(value)
        ? value.map(text)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([key, part]) => [key, key === 'text' ? text(part) : part]))
          : value;
  return results.map((result) => text(result.content));
}

/**
 * Our tools as each client hands them to the model (Codex: its tool search's answer; Claude Code: the tools of its
 * requests), as they were with the MCP SDK 1.x server: a server change must not change what the model reads.
 */
const SEEN_BY_MODEL = JSON.parse(readFileSync(new URL('tools-seen-by-model.json', import.meta.url), 'utf8')) as {
  codex: unknown;
  claude: unknown;
};

/** Claude Code's tools without its own `defer_loading` mark (set on a tool it deferred): what our server gave. */
const withoutDeferMark = (tools: unknown) =>
  (tools as Record<string, unknown>[]).map(({ defer_loading: _mark, ...tool }) => tool);

type Server = { transport: 'stdio' } | { transport: 'http'; url: string; token: string };
type Client = typeof runCodexClient;

/**
 * Runs `client` against unified-exec over `transport` (HTTP: `serve` with a token, in its default sandbox, and the
 * flags `serveFlags`), with the Claude Code build at `claude`.
 */
async function runOver(
  client: Client,
  transport: 'stdio' | 'http',
  claude?: string,
  serveFlags: string[] = [],
): Promise<ClientRun> {
  const home = makeClientHome(claude);
  // The README's `npm start`: serve with its default sandbox (the shared helper turns it off unless one is named).
  const token = randomBytes(24).toString('hex');
  const serve =
    transport === 'http'
      ? await startServe(['--sandbox', 'workspace-write', ...serveFlags], { UNIFIED_EXEC_TOKEN: token })
      : undefined;
  try {
    const server: Server = serve ? { transport, url: serve.url, token } : { transport: 'stdio' };
    return await client(home, lines, checkout, server);
  } finally {
    await serve?.stop();
    home.remove();
  }
}

afterAll(() => killLeftoverServes());

describe.skipIf(missing !== undefined)('Codex CLI set up with the README lines', () => {
  // Codex hands the model its own wall time and the tool's text as two content parts.
  const expected = [...CODEX_TEXTS, DECLINED_TEXT].map((text) => [
    { type: 'input_text', text: 'Wall time: <wall> seconds\nOutput:' },
    { type: 'input_text', text },
  ]);

  it.each(['stdio', 'http'] as const)(
    'shows the model Codex text over %s',
    async (transport) => {
      const run = await runOver(runCodexClient, transport);
      // The server's tools are deferred: offered only through tool_search, which answers with them as a namespace.
      // (Codex's own exec_command and write_stdin are offered directly.)
      expect(run.offered[0]).toContain('tool_search');
      expect(run.offered[0]?.filter((name) => name.startsWith('mcp__'))).toEqual([]);
      expect(run.searched).toEqual([
        expect.objectContaining({
          type: 'namespace',
          name: 'mcp__unified_exec',
          tools: expect.arrayContaining([
            expect.objectContaining({ type: 'function', name: 'exec_command' }),
            expect.objectContaining({ type: 'function', name: 'write_stdin' }),
          ]),
        }),
      ]);
      expect(normalized(run.results), run.log).toEqual(expected);
      expect(run.tools).toEqual(SEEN_BY_MODEL.codex);
    },
    180_000,
  );
});

describe.skipIf(missing !== undefined).each(CLAUDE_CODE_BUILDS)(
  'Claude Code $version set up with the README lines',
  ({ version, binary }) => {
    const expected = [...CODEX_TEXTS, APPROVED_TEXT].map((text) => [{ type: 'text', text }]);
    const ours = (name: string) => `mcp__unified-exec__${name}`;

    it('is the build it says', () => {
      expect(execFileSync(binary, ['--version'], { encoding: 'utf8' })).toContain(`${version} (Claude Code)`);
    });

    it.each(['stdio', 'http'] as const)(
      'loads exec_command and write_stdin from the first turn, tool search on, and shows the model Codex text over %s',
      async (transport) => {
        const run = await runOver(runClaudeClient, transport, binary);
        // Tool search is on: the other server's tools and our other two are deferred behind ToolSearch; exec_command
        // and write_stdin (`_meta["anthropic/alwaysLoad"]`) are offered with their schemas from the first request.
        expect(run.offered[0]).toContain('ToolSearch');
        expect(run.offered[0]?.filter((name) => name.startsWith('mcp__'))).toEqual([
          ours('exec_command'),
          ours('write_stdin'),
        ]);
        expect(run.offered[0]).not.toContain(`mcp__${OTHER_SERVER}__exec_command`);
        expect(run.searched).toBeUndefined();
        expect((run.tools as Record<string, unknown>[]).map((tool) => tool.defer_loading)).toEqual([
          undefined,
          undefined,
        ]);
        expect(withoutDeferMark(run.tools)).toEqual(SEEN_BY_MODEL.claude);
        expect(normalized(run.results), run.log).toEqual(expected);
      },
      180_000,
    );

    it('defers them behind its tool search with --defer-tools, as before', async () => {
      const run = await runOver(runClaudeClient, 'http', binary, ['--defer-tools']);
      expect(run.offered[0]).toContain('ToolSearch');
      expect(run.offered[0]?.filter((name) => name.startsWith('mcp__'))).toEqual([]);
      expect(run.searched).toEqual([
        { type: 'tool_reference', tool_name: ours('exec_command') },
        { type: 'tool_reference', tool_name: ours('write_stdin') },
      ]);
      expect(withoutDeferMark(run.tools)).toEqual(SEEN_BY_MODEL.claude);
      expect(normalized(run.results), run.log).toEqual(expected);
    }, 180_000);
  },
);
