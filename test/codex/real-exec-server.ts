// The real `codex exec-server` on a random loopback port, started the way the reference kit's
// exec-server/start-exec-server.sh does: a fresh CODEX_HOME from home/config.toml under /var/tmp.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_CONFIG, codexBinary } from './codex-install.js';
import { directEnv, makeStateDir, ownHome } from './spawned.js';
import { startWsServer, type RunningServer } from './ws-server-process.js';

export interface RealExecServerOptions {
  /** Extra `codex exec-server` arguments, e.g. ['--concurrent-requests', '4']. */
  readonly args?: readonly string[];
}

export async function startRealExecServer(options: RealExecServerOptions = {}): Promise<RunningServer> {
  const binary = codexBinary();
  const stateDir = makeStateDir('codex-exec-server-');
  const home = join(stateDir, 'home');
  mkdirSync(home);
  copyFileSync(CODEX_CONFIG, join(home, 'config.toml'));
  const env = directEnv();
  delete env.CODEX_EXEC_SERVER_URL;
  // Port 0: the server binds a free port itself and prints the URL, so no other process can take it meanwhile.
  return startWsServer({
    name: 'codex exec-server',
    command: binary,
    args: ['exec-server', '--listen', 'ws://127.0.0.1:0', ...(options.args ?? [])],
    env: { ...env, CODEX_HOME: home, HOME: ownHome(stateDir) },
    stateDir,
  });
}
