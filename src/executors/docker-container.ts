import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import type Dockerode from 'dockerode';
import { delay } from '../util/delay.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { SESSION_ENV, type EnvPolicy } from '../spawn/env.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import type { SpawnOptions } from '../spawn/types.js';
import { killTreeArgv } from './container-kill-script.js';
import { DockerProcess, type ContainerLink } from './docker-process.js';
import { engineReason, execCreateFailure, isNoSuchContainer, isUnreachable } from './docker-messages.js';

/** How long a container that stopped under a command is watched for being removed (rm -f stops it first). */
const REMOVAL_POLL_MS = 50;
const REMOVAL_POLLS = 10;

/**
 * What an exec adds to the container's own environment (which stays the base: nothing of this machine's is sent):
 * the session variables, the policy's `set` over them, and the process tag.
 */
export function containerEnv(policy: EnvPolicy | undefined, tag: string): string[] {
  const env = { ...SESSION_ENV, ...policy?.set, [PROCESS_TAG_VAR]: tag };
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}

/** The exec's working directory: '' is the container's own, a relative path is resolved against it. */
export function containerCwd(cwd: string, containerWorkdir: () => Promise<string>): Promise<string | undefined> {
  if (cwd === '') return Promise.resolve(undefined);
  if (posix.isAbsolute(cwd)) return Promise.resolve(posix.resolve(cwd));
  return containerWorkdir().then((base) => posix.resolve(base || '/', cwd));
}

/** One running container, as the executor execs into it. */
export class ContainerTarget implements ContainerLink {
  private workdir: Promise<string> | undefined;

  constructor(
    readonly docker: Dockerode,
    readonly container: Dockerode.Container,
    readonly name: string,
    /** `the Docker engine at unix:///…`, for messages. */
    private readonly engine: string,
  ) {}

  /**
   * Starts `options.argv` in the container; rejects with what to check when it cannot. `arg0` is not honoured: the
   * exec API has no argv[0] of its own, and `exec -a` is not POSIX sh. `sandbox` is ignored: the container is the box.
   */
  async spawn(options: SpawnOptions, onTerminated?: (proc: DockerProcess) => void): Promise<DockerProcess> {
    if (options.argv.length === 0) throw new Error('argv is empty');
    const stdin = options.tty || options.pipeStdin === true;
    const size = { h: options.rows ?? DEFAULT_ROWS, w: options.cols ?? DEFAULT_COLS };
    const tag = newProcessTag();
    const cwd = await containerCwd(options.cwd, () => this.workingDir());
    let exec: Dockerode.Exec;
    let stream: Duplex;
    try {
      exec = await this.container.exec({
        Cmd: [...options.argv],
        Env: containerEnv(options.envPolicy, tag),
        Tty: options.tty,
        AttachStdin: stdin,
        AttachStdout: true,
        AttachStderr: true,
        ...(cwd === undefined ? {} : { WorkingDir: cwd }),
      });
      // The size goes with the start: Podman reads h and w, Docker (API 1.42+) ConsoleSize.
      const start = { hijack: true, stdin, Tty: options.tty };
      const sized = options.tty ? { ...start, h: size.h, w: size.w, ConsoleSize: [size.h, size.w] } : start;
      stream = await exec.start(sized as Dockerode.ExecStartOptions);
    } catch (err) {
      throw new Error(execCreateFailure(err, this.name, this.engine), { cause: err });
    }
    const proc = new DockerProcess({
      exec,
      stream,
      tty: options.tty,
      stdin,
      tag,
      link: this,
      ...(onTerminated ? { onTerminated } : {}),
      demux: (from, stdout, stderr) => this.docker.modem.demuxStream(from, stdout, stderr),
    });
    await proc.started();
    return proc;
  }

  async whyGone(err?: unknown): Promise<string | undefined> {
    if (err !== undefined && isUnreachable(err)) return this.unreachable(err);
    // A forced removal stops the container first: give it a moment to be gone, so the sentence says which it was.
    let state: Dockerode.ContainerInspectInfo['State'] | undefined;
    for (let poll = 0; poll <= REMOVAL_POLLS; poll++) {
      if (poll > 0) await delay(REMOVAL_POLL_MS);
      try {
        state = (await this.container.inspect()).State;
      } catch (inspectErr) {
        if (isUnreachable(inspectErr)) return this.unreachable(inspectErr);
        if (isNoSuchContainer(inspectErr)) {
          return `container ${this.name} was removed while the command ran`;
        }
        return `container ${this.name} could not be inspected: ${engineReason(inspectErr)}`;
      }
      if (state.Running) return undefined;
    }
    return `container ${this.name} stopped (${state?.Status}, exit code ${state?.ExitCode}), ending the command`;
  }

  async killTree(tag: string, first: readonly string[]): Promise<void> {
    const exec = await this.container.exec({ Cmd: killTreeArgv(tag, first), AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise<void>((resolve) => {
      for (const event of ['end', 'close', 'error']) stream.once(event, () => resolve());
      stream.resume();
    });
  }

  private unreachable(err: unknown): string {
    const code = (err as { code?: string }).code ?? engineReason(err);
    return `${this.engine} stopped answering (${code}); the command may still run in container ${this.name}`;
  }

  /** The container's configured working directory ('' when none, which means /). */
  private workingDir(): Promise<string> {
    this.workdir ??= this.container.inspect().then(
      (info) => info.Config.WorkingDir,
      (err: unknown) => {
        this.workdir = undefined;
        throw new Error(execCreateFailure(err, this.name, this.engine), { cause: err });
      },
    );
    return this.workdir;
  }
}
