import { createRequire } from 'node:module';
import type Dockerode from 'dockerode';
import { specElsewhere } from '../spawn/command.js';
import {
  type CommandRequest,
  type ExecProcess,
  type Executor,
  type SpawnOptions,
  type StartedCommand,
} from '../spawn/types.js';
import { ContainerTarget } from './docker-container.js';
import { containerCreateFailure, engineReason, isNoSuchContainer } from './docker-messages.js';
import type { DockerProcess } from './docker-process.js';

/**
 * dockerode, loaded by the first DockerExecutor: it and its HTTP stack hold ~25 MiB, and every PTY spawn of the
 * process forks all of its memory's page tables (a fork from a 80 MiB process costs ~40 % more than from 50 MiB).
 */
function loadDockerode(): typeof Dockerode {
  try {
    return createRequire(import.meta.url)('dockerode') as typeof Dockerode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    // An optional dependency: only programs that run commands in containers install it.
    throw new Error('DockerExecutor needs the dockerode package, which is not installed: npm install dockerode@5', {
      cause: error,
    });
  }
}

/** The label on every container the executor makes, so they can be found (and cleaned up) by it. */
export const CONTAINER_LABEL = 'unified-exec';
/** Keeps a container made from an image alive; its init (Init: true) reaps what sessions leave behind. */
const KEEPALIVE = 'while sleep 3600; do :; done';

/**
 * A dockerode client as the public API types it: by its `modem`, without dockerode's declarations, so a program
 * that never runs containers needs neither dockerode nor its types.
 */
interface DockerClient {
  modem: object;
}

/** Options for the container the executor makes (dockerode's ContainerCreateOptions, the Engine API's body; its Image is the executor's). */
interface ContainerCreateOptions {
  Labels?: Record<string, string>;
  HostConfig?: Record<string, unknown>;
  [option: string]: unknown;
}

interface EngineOptions {
  /** A dockerode client, or the engine's socket. Default: what dockerode picks (DOCKER_HOST, else /var/run/docker.sock). */
  docker?: DockerClient | { socketPath: string };
}

export type DockerExecutorOptions = EngineOptions &
  (
    | {
        /** Exec in this running container (name or id). */
        container: string;
        image?: never;
      }
    | {
        /** Make one container from this image on the first spawn, and remove it in close(). */
        image: string;
        container?: never;
        /**
         * More options for that container (mounts, network, user, labels), over the executor's own: `Labels` and
         * `HostConfig` are merged, the rest replaced.
         */
        createOptions?: ContainerCreateOptions;
      }
  );

/**
 * Runs each session's command in a container through the Docker Engine API (Docker, or Podman's compatible
 * service). The container is the isolation: no sandbox is laid inside it, and the manager does not look at this
 * machine's shells, directories or environment for it.
 */
export class DockerExecutor implements Executor {
  private readonly docker: Dockerode;
  private readonly engine: string;
  private target: Promise<ContainerTarget> | undefined;
  /** Every process not yet terminated, so close() can end them. */
  private readonly live = new Set<DockerProcess>();
  private closing: Promise<void> | undefined;
  private containerId: string | undefined;

  constructor(private readonly options: DockerExecutorOptions) {
    const given = options.docker;
    // Duck-typed: a client from another copy of dockerode is still a client.
    this.docker = given !== undefined && 'modem' in given ? (given as Dockerode) : new (loadDockerode())(given);
    this.engine = describeEngine(this.docker);
    if ((options.container === undefined) === (options.image === undefined)) {
      throw new Error('DockerExecutor needs exactly one of `container` (a running container) or `image`');
    }
  }

  /** `docker://web-1`, or `docker-image://debian:bookworm (container 3f2a1b2c3d4e)` once it is made. */
  get location(): string {
    if (this.options.container !== undefined) return `docker://${this.options.container}`;
    const made = this.containerId === undefined ? '' : ` (container ${this.containerId.slice(0, 12)})`;
    return `docker-image://${this.options.image}${made}`;
  }

  /**
   * The command as the container runs it: the shell line or argv as is, the directory resolved there, the
   * environment built from the container's own with the policy. No sandbox is laid: the container is the box.
   */
  async start(request: CommandRequest): Promise<StartedCommand> {
    const process = await this.spawn(specElsewhere(request));
    return { process, sandbox: undefined, warnings: [] };
  }

  async spawn(options: SpawnOptions): Promise<ExecProcess> {
    this.assertOpen();
    const target = await this.ready();
    this.assertOpen();
    const proc = await target.spawn(options, (ended) => this.live.delete(ended));
    this.live.add(proc);
    if (this.closing !== undefined) {
      await proc.terminate();
      this.assertOpen();
    }
    return proc;
  }

  /** Ends every session still held, then removes the container this executor made (if any). Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.live].map((proc) => proc.terminate()));
      if (this.options.image === undefined || this.target === undefined) return;
      const target = await this.target.catch(() => undefined);
      if (target === undefined) return;
      try {
        await target.container.remove({ force: true });
      } catch (err) {
        if (isNoSuchContainer(err)) return;
        const what = `container ${target.name} (made from ${this.options.image})`;
        throw new Error(`could not remove ${what}: ${engineReason(err)}`, { cause: err });
      }
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing !== undefined) throw new Error(`the executor for ${this.location} is closed`);
  }

  /** The container to exec in; for an image, made once (a failed attempt is retried by the next spawn). */
  private ready(): Promise<ContainerTarget> {
    this.target ??= this.makeTarget().catch((err: unknown) => {
      this.target = undefined;
      throw err;
    });
    return this.target;
  }

  private async makeTarget(): Promise<ContainerTarget> {
    const { options } = this;
    if (options.container !== undefined) {
      return new ContainerTarget(
        this.docker,
        this.docker.getContainer(options.container),
        options.container,
        this.engine,
      );
    }
    const extra = options.createOptions ?? {};
    let container: Dockerode.Container | undefined;
    try {
      container = await this.docker.createContainer({
        Entrypoint: ['/bin/sh', '-c', KEEPALIVE],
        Cmd: [],
        ...(extra as Dockerode.ContainerCreateOptions),
        Image: options.image,
        Labels: { ...extra.Labels, [CONTAINER_LABEL]: '1' },
        HostConfig: { Init: true, ...extra.HostConfig },
      });
      await container.start();
    } catch (err) {
      await container?.remove({ force: true }).catch(() => undefined);
      throw new Error(containerCreateFailure(err, options.image, this.engine), { cause: err });
    }
    this.containerId = container.id;
    return new ContainerTarget(this.docker, container, container.id.slice(0, 12), this.engine);
  }
}

/** `the Docker engine at unix:///run/docker.sock` (or tcp://host:port). */
function describeEngine(docker: Dockerode): string {
  const modem = docker.modem as { socketPath?: unknown; protocol?: string; host?: string; port?: string | number };
  if (typeof modem.socketPath === 'string') return `the Docker engine at unix://${modem.socketPath}`;
  return `the Docker engine at ${modem.protocol ?? 'http'}://${modem.host ?? 'localhost'}:${modem.port ?? ''}`;
}
