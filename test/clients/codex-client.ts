// Codex CLI set up with the README's own lines and run headless (`codex exec`) against the fake Responses API.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from '../mcp/cli-process.js';
import { directEnv } from '../codex/spawned.js';
import type { ClientHome } from './client-home.js';
import { startFakeResponsesApi } from './fake-responses-api.js';
import type { RecordedResult } from './model-script.js';
import { type ClientLines, fillPlaceholders } from './readme-lines.js';

const CONFIG = new URL('codex-config.toml', import.meta.url).pathname;
/** Codex names an MCP server's deferred tools so: `-` is not allowed in a namespace. */
const NAMESPACE = 'mcp__unified_exec';
const TABLE = '[mcp_servers.unified-exec]';

export interface ClientRun {
  readonly results: RecordedResult[];
  /** The names of the tools each model request offered directly: the MCP tools are deferred behind a search. */
  readonly offered: string[][];
  /** What the client answered the model's tool search with. */
  readonly searched: unknown;
  /** The server's tools as the model was given them (Codex: the searched namespace; Claude Code: the tools). */
  readonly tools: unknown;
  /** The client's own output, for a failing test to show. */
  readonly log: string;
}

/** Puts the README's TOML lines right under the table `codex mcp add` wrote, as the README says to. */
export function addUnderTable(config: string, lines: readonly string[]): string {
  const at = config.indexOf(`${TABLE}\n`);
  if (at < 0) throw new Error(`codex mcp add wrote no ${TABLE}:\n${config}`);
  const end = at + TABLE.length + 1;
  return `${config.slice(0, end)}${lines.join('\n')}\n${config.slice(end)}`;
}

/**
 * Runs the README's `codex mcp add` line (`transport`; for HTTP, `url` and its token), adds the README's TOML lines,
 * then `codex exec` plays the script. Throws with Codex's output if a step fails.
 */
export async function runCodexClient(
  home: ClientHome,
  lines: ClientLines,
  checkout: string,
  server: { transport: 'stdio' } | { transport: 'http'; url: string; token: string },
): Promise<ClientRun> {
  const env: NodeJS.ProcessEnv = {
    ...directEnv(),
    HOME: home.home,
    CODEX_HOME: home.codexHome,
    PATH: home.path,
    FAKE_MODEL_API_KEY: 'dummy',
  };
  delete env.UNIFIED_EXEC_TOKEN;
  if (server.transport === 'http') env.UNIFIED_EXEC_TOKEN = server.token;
  const configPath = join(home.codexHome, 'config.toml');
  copyFileSync(CONFIG, configPath);
  const add = fillPlaceholders(
    lines.codexAdd[server.transport],
    checkout,
    server.transport === 'http' ? server.url : undefined,
  );
  const added = await runToEnd('bash', ['-c', add], { cwd: home.work, env, timeoutMs: 30_000 });
  if (added.code !== 0) throw new Error(`${add} failed (${added.code}): ${added.stdout}${added.stderr}`);
  writeFileSync(configPath, addUnderTable(readFileSync(configPath, 'utf8'), lines.codexToml));

  const model = await startFakeResponsesApi(NAMESPACE);
  try {
    const args = ['exec', '--skip-git-repo-check', '--json'];
    args.push('-c', `model_providers.fake.base_url="${model.url}/v1"`, 'run the script');
    const run = await runToEnd('codex', args, { cwd: home.work, env, timeoutMs: 120_000 });
    const log = `exit ${run.code ?? run.signal}\n${run.stdout}\n${run.stderr}`;
    if (run.code !== 0) throw new Error(`codex exec failed: ${log}`);
    return { results: model.results, offered: model.offered, searched: model.searched, tools: model.searched, log };
  } finally {
    await model.close();
  }
}
