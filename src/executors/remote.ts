import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { fileUriToPath, METHODS, pathToFileUri, type ProcessStartResult } from '../exec-server/protocol.js';
import type { ExecEnvPolicy, ProcessStartParams } from '../exec-server/schemas.js';
import { toWireSandbox } from '../exec-server/sandbox-wire.js';
import { SESSION_ENV } from '../spawn/env.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import { specElsewhere } from '../spawn/command.js';
import {
  type CommandRequest,
  type ExecProcess,
  type Executor,
  type SpawnOptions,
  type StartedCommand,
} from '../spawn/types.js';
import { ExecServerClient, type ExecServerClientOptions } from './exec-server-client.js';
import { RemoteProcess } from './remote-process.js';

export type RemoteExecutorOptions = ExecServerClientOptions;

/**
 * Runs programs on an exec-server (`unified-exec exec-server`, or Codex's `codex exec-server`) over one WebSocket
 * connection, shared by every session this executor starts. The environment is built on the server's side from the
 * manager's env policy; the sandbox policy travels as Codex's `sandbox` object and the server applies it. Our own
 * server also reports input-wait and takes resizes; with Codex's, live calls answer at their deadline.
 */
export class RemoteExecutor implements Executor {
  private readonly connection: ExecServerClient;
  private readonly live = new Set<RemoteProcess>();
  private readonly prefix = `ue-${process.pid}-${randomBytes(4).toString('hex')}`;
  private started = 0;

  constructor(options: RemoteExecutorOptions) {
    this.connection = new ExecServerClient(options);
  }

  get location(): string {
    return this.connection.url;
  }

  /** How many times the connection dropped and was resumed without losing the exec-server session. */
  get reconnections(): number {
    return this.connection.reconnections;
  }

  /**
   * The command as the server runs it: the shell line or argv as is, the directory resolved against the server's,
   * the environment built there from the policy, the sandbox applied there.
   */
  async start(request: CommandRequest): Promise<StartedCommand> {
    const process = await this.spawn({
      ...specElsewhere(request),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    });
    return { process, sandbox: request.sandbox, warnings: [] };
  }

  async spawn(options: SpawnOptions): Promise<ExecProcess> {
    const info = await this.connection.ready();
    const serverCwd = info.environmentInfo?.cwd ? fileUriToPath(info.environmentInfo.cwd) : '/';
    const cwd = posix.resolve(serverCwd, options.cwd);
    const processId = `${this.prefix}-${++this.started}`;
    const stdinOpen = options.tty || options.pipeStdin === true;
    const proc = new RemoteProcess(this.connection, processId, options.tty, stdinOpen);
    this.connection.register(processId, proc);
    const params: ProcessStartParams = {
      processId,
      argv: [...options.argv],
      cwd: pathToFileUri(cwd),
      ...environment(options),
      tty: options.tty,
      pipeStdin: options.pipeStdin ?? false,
      arg0: options.arg0 ?? null,
      sandbox: options.sandbox ? toWireSandbox(options.sandbox, cwd) : null,
      ...(options.tty ? { cols: options.cols ?? DEFAULT_COLS, rows: options.rows ?? DEFAULT_ROWS } : {}),
    };
    let result: ProcessStartResult;
    try {
      result = await this.connection.request<ProcessStartResult>(METHODS.processStart, params);
    } catch (err) {
      this.connection.unregister(processId);
      throw new Error(`the exec-server at ${this.location} could not start it: ${(err as Error).message}`);
    }
    proc.remotePid = result.pid;
    this.live.add(proc);
    proc.onExit(() => this.live.delete(proc));
    return proc;
  }

  /** Ends this executor's processes on the server, then the connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.live].map((proc) => proc.terminate()));
    this.connection.close();
  }
}

/**
 * What the server builds the environment from: the manager's policy applied to the server's own environment, and
 * the session variables over it. Without a policy, exactly the environment given.
 */
function environment(options: SpawnOptions): { env: Record<string, string>; envPolicy?: ExecEnvPolicy } {
  const policy = options.envPolicy;
  if (!policy) return { env: { ...options.env } };
  return {
    env: { ...SESSION_ENV, ...policy.set },
    envPolicy: {
      inherit: policy.inherit ?? 'all',
      ignoreDefaultExcludes: policy.keepSecrets ?? false,
      exclude: [...(policy.exclude ?? [])],
      set: {},
      includeOnly: [...(policy.includeOnly ?? [])],
    },
  };
}
