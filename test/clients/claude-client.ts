// Claude Code set up with the README's own lines and settings and run headless (the README's `claude -p` line)
// against the fake Messages API.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from '../mcp/cli-process.js';
import { directEnv } from '../codex/spawned.js';
import type { ClientHome } from './client-home.js';
import type { ClientRun } from './codex-client.js';
import { startFakeMessagesApi } from './fake-messages-api.js';
import { type ClientLines, fillPlaceholders } from './readme-lines.js';

/** The second MCP server every run connects: unified-exec again, with `--defer-tools`. */
export const OTHER_SERVER = 'other';

/**
 * Runs the README's `claude mcp add` line (`transport`; for HTTP, `url` and its token in UNIFIED_EXEC_TOKEN, as the
 * README's line reads it), then its `claude -p` line plays the script. Throws with Claude Code's output on failure.
 */
export async function runClaudeClient(
  home: ClientHome,
  lines: ClientLines,
  checkout: string,
  server: { transport: 'stdio' } | { transport: 'http'; url: string; token: string },
): Promise<ClientRun> {
  const model = await startFakeMessagesApi('unified-exec');
  try {
    const env: NodeJS.ProcessEnv = {
      ...directEnv(),
      HOME: home.home,
      PATH: home.path,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    };
    delete env.UNIFIED_EXEC_TOKEN;
    if (server.transport === 'http') env.UNIFIED_EXEC_TOKEN = server.token;
    const url = server.transport === 'http' ? server.url : undefined;
    const add = fillPlaceholders(lines.claudeAdd[server.transport], checkout, url);
    const added = await runToEnd('bash', ['-c', add], { cwd: home.work, env, timeoutMs: 60_000 });
    if (added.code !== 0) throw new Error(`${add} failed (${added.code}): ${added.stdout}${added.stderr}`);
    // A second server, whose tools do not ask to be loaded: with more than one server, tool search is surely on.
    const other = ['mcp', 'add', OTHER_SERVER, '--', process.execPath, join(checkout, 'dist/cli/index.js')];
    const addedOther = await runToEnd('claude', [...other, 'mcp', '--defer-tools'], {
      cwd: home.work,
      env,
      timeoutMs: 60_000,
    });
    if (addedOther.code !== 0) throw new Error(`claude ${other.join(' ')} failed: ${addedOther.stderr}`);
    // The README's settings with its Elicitation hook, where it says to put them.
    mkdirSync(join(home.home, '.claude'), { recursive: true });
    writeFileSync(join(home.home, '.claude', 'settings.json'), lines.claudeSettings);
    const run = await runToEnd('bash', ['-c', lines.claudeHeadless], { cwd: home.work, env, timeoutMs: 120_000 });
    const log = `exit ${run.code ?? run.signal}\n${run.stdout}\n${run.stderr}`;
    if (run.code !== 0) throw new Error(`${lines.claudeHeadless} failed: ${log}`);
    return { results: model.results, offered: model.offered, searched: model.searched, tools: model.loaded, log };
  } finally {
    await model.close();
  }
}
