// Our exec-server, from the built CLI: `node dist/cli/index.js exec-server --listen ws://127.0.0.1:0`, which prints
// its ws URL as the first line of stdout. vitest's global setup rebuilds dist/ when src/ is newer.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './codex-install.js';
import { directEnv, makeStateDir } from './spawned.js';
import { startWsServer, type RunningServer } from './ws-server-process.js';

export const BUILT_CLI = join(REPO_ROOT, 'dist/cli/index.js');

export interface OurExecServerOptions {
  /** Extra `exec-server` arguments. */
  readonly args?: readonly string[];
}

export async function startOurExecServer(options: OurExecServerOptions = {}): Promise<RunningServer> {
  if (!existsSync(BUILT_CLI)) throw new Error(`no ${BUILT_CLI}: run \`npm run build\` first`);
  const env = directEnv();
  delete env.CODEX_EXEC_SERVER_URL;
  return startWsServer({
    name: 'our exec-server',
    command: process.execPath,
    args: [BUILT_CLI, 'exec-server', '--listen', 'ws://127.0.0.1:0', ...(options.args ?? [])],
    env,
    stateDir: makeStateDir('unified-exec-server-'),
  });
}
