import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { hideFromSandboxes } from '../sandbox/secret-files.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { CommandRequest, Executor, StartedCommand } from '../spawn/types.js';
import type { ExecutorUrl } from './urls.js';

/** The variable a bearer token for exec-servers comes from, when the URL names no token file. */
export const EXECUTOR_TOKEN_VAR = 'UNIFIED_EXEC_EXECUTOR_TOKEN';

/**
 * Makes the executor a parsed URL names. Nothing connects yet: exec-servers and engines are reached on first use, and
 * their code (the WebSocket client, the container engine's) loads then too, so a server that never uses them starts
 * without it.
 */
export function createExecutor(url: ExecutorUrl, env: NodeJS.ProcessEnv = process.env): Executor {
  switch (url.kind) {
    case 'local':
      return new LocalExecutor();
    case 'exec-server': {
      const token = url.tokenFile ? readToken(url.tokenFile) : env[EXECUTOR_TOKEN_VAR] || undefined;
      return new LoadedOnUse(url.url, async () => {
        const { RemoteExecutor } = await import('./remote.js');
        return new RemoteExecutor({ url: url.url, ...(token ? { token } : {}) });
      });
    }
    case 'docker':
    case 'docker-image': {
      const docker = url.socketPath ? { docker: { socketPath: url.socketPath } } : {};
      const target = url.kind === 'docker' ? { container: url.container } : { image: url.image };
      const location = url.kind === 'docker' ? `docker://${url.container}` : `docker-image://${url.image}`;
      return new LoadedOnUse(location, async () => {
        const { DockerExecutor } = await import('./docker.js');
        return new DockerExecutor({ ...docker, ...target });
      });
    }
  }
}

/** An executor made, with its module loaded, on its first command; until then `location` is the URL's. */
class LoadedOnUse implements Executor {
  private made: Promise<Executor> | undefined;
  private executor: Executor | undefined;

  constructor(
    private readonly urlLocation: string,
    private readonly make: () => Promise<Executor>,
  ) {}

  get location(): string {
    return this.executor?.location ?? this.urlLocation;
  }

  private load(): Promise<Executor> {
    return (this.made ??= this.make().then((executor) => (this.executor = executor)));
  }

  async prepare(request: CommandRequest): Promise<void> {
    await (await this.load()).prepare?.(request);
  }

  async start(request: CommandRequest): Promise<StartedCommand> {
    return (await this.load()).start(request);
  }

  async close(): Promise<void> {
    const executor = await this.made?.catch(() => undefined); // one that failed to load holds nothing
    await executor?.close?.();
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
