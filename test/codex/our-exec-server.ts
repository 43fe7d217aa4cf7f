// Our exec-server, from the built CLI: `node dist/cli/index.js exec-server --listen ws://127.0.0.1:0 --token-file
// FILE`, which prints its ws URL as the first line of stdout. vitest's global setup rebuilds dist/ when src/ is newer.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './codex-install.js';
import { directEnv, makeStateDir, ownHome } from './spawned.js';
import { startWsServer, type RunningServer } from './ws-server-process.js';

export const BUILT_CLI = join(REPO_ROOT, 'dist/cli/index.js');

export interface OurExecServerOptions {
  /** Extra `exec-server` arguments. */
  readonly args?: readonly string[];
  /**
   * 'token' (default): a random token in a file of its own, as a user would run it. 'none': --no-auth, for a client
   * that cannot send one (the reference kit's tap relays no headers).
   */
  readonly auth?: 'token' | 'none';
}

export async function startOurExecServer(options: OurExecServerOptions = {}): Promise<RunningServer> {
  if (!existsSync(BUILT_CLI)) throw new Error(`no ${BUILT_CLI}: run \`npm run build\` first`);
  const env = directEnv();
  delete env.CODEX_EXEC_SERVER_URL;
  delete env.UNIFIED_EXEC_EXEC_SERVER_TOKEN;
  const stateDir = makeStateDir('unified-exec-server-');
  let tokenFile: { path: string; token: string } | undefined;
  if (options.auth !== 'none') {
    tokenFile = { path: join(stateDir, 'token'), token: randomBytes(32).toString('base64url') };
    writeFileSync(tokenFile.path, `${tokenFile.token}\n`, { mode: 0o600 });
  }
  const auth = tokenFile ? ['--token-file', tokenFile.path] : ['--no-auth'];
  return startWsServer({
    name: 'our exec-server',
    command: process.execPath,
    args: [BUILT_CLI, 'exec-server', '--listen', 'ws://127.0.0.1:0', ...auth, ...(options.args ?? [])],
    env: { ...env, HOME: ownHome(stateDir) },
    stateDir,
    ...(tokenFile ? { tokenFile } : {}),
  });
}
