import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hideFromSandboxes } from '../sandbox/secret-files.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { Executor } from '../spawn/types.js';
import { DockerExecutor } from './docker.js';
import { RemoteExecutor } from './remote.js';
import type { ExecutorUrl } from './urls.js';

/** The variable a bearer token for exec-servers comes from, when the URL names no token file. */
export const EXECUTOR_TOKEN_VAR = 'UNIFIED_EXEC_EXECUTOR_TOKEN';

/** Makes the executor a parsed URL names. Nothing connects yet: exec-servers and engines are reached on first use. */
export function createExecutor(url: ExecutorUrl, env: NodeJS.ProcessEnv = process.env): Executor {
  switch (url.kind) {
    case 'local':
      return new LocalExecutor();
    case 'exec-server': {
      const token = url.tokenFile ? readToken(url.tokenFile) : env[EXECUTOR_TOKEN_VAR] || undefined;
      return new RemoteExecutor({ url: url.url, ...(token ? { token } : {}) });
    }
    case 'docker':
    case 'docker-image': {
      const docker = url.socketPath ? { docker: { socketPath: url.socketPath } } : {};
      return url.kind === 'docker'
        ? new DockerExecutor({ ...docker, container: url.container })
        : new DockerExecutor({ ...docker, image: url.image });
    }
  }
}

/** Reads an exec-server's token file, which from then on no sandbox of this process may read. */
function readToken(path: string): string {
  hideFromSandboxes([resolve(path)]);
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new Error(`cannot read the exec-server token file ${path}: ${(err as Error).message}`);
  }
  if (token === '') throw new Error(`the exec-server token file ${path} is empty`);
  return token;
}
