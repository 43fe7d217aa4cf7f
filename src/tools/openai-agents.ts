// A sandbox backend for the OpenAI Agents SDK (`@openai/agents`): its SandboxClient makes sessions whose
// exec_command and write_stdin run on a UnifiedExecManager (a native PTY, input-wait, Codex's clamps and text, the
// sandbox, approvals). The workspace itself (the manifest, files, the editor, snapshots, serialization) stays the
// SDK's own UnixLocalSandboxClient's, so every other capability works as it does there.
import { userInfo } from 'node:os';
import type { Editor } from '@openai/agents';
import type {
  ExecCommandArgs,
  ListDirectoryArgs,
  Manifest,
  MaterializeEntryArgs,
  ReadFileArgs,
  SandboxArchiveLimits,
  SandboxClient,
  SandboxClientCreateArgs,
  SandboxClientResumeOptions,
  SandboxSession,
  ViewImageArgs,
  WorkspaceArchiveData,
  WorkspaceArchiveOptions,
  WriteStdinArgs,
} from '@openai/agents/sandbox';
import {
  UnixLocalSandboxClient,
  type UnixLocalSandboxClientOptions,
  type UnixLocalSandboxSession,
  type UnixLocalSandboxSessionState,
} from '@openai/agents/sandbox/local';
import { invalidArgument, shutDown } from '../manager/errors.js';
import { UnifiedExecManager } from '../manager/manager.js';
import type { ManagerOptions } from '../manager/types.js';
import { callTool } from './run-tool.js';

/**
 * The manager's options (sandbox, approvals, shell, limits...), for every session's manager. `cwd` is not one: each
 * session runs in its own workspace, which a `workspace-write` sandbox keeps writable.
 */
export type UnifiedExecSandboxClientOptions = Omit<ManagerOptions, 'cwd'>;

/**
 * What the UnixLocal session does to a command line and its output, so that the manifest's root (`/workspace`, which
 * the SDK's prompt names) means the workspace's real folder. Declared protected in the SDK; read here so the model sees
 * the same paths under either client.
 */
interface CommandPaths {
  translateCommandInput(command: string): string;
  translateCommandOutput(output: string): string;
}

function commandPaths(session: UnixLocalSandboxSession): CommandPaths {
  const paths = session as unknown as Partial<CommandPaths>;
  if (typeof paths.translateCommandInput !== 'function' || typeof paths.translateCommandOutput !== 'function') {
    throw new Error('This @openai/agents has no UnixLocalSandboxSession path translation; unified-exec needs 0.20.x');
  }
  return {
    translateCommandInput: (command) => paths.translateCommandInput!.call(session, command),
    translateCommandOutput: (output) => paths.translateCommandOutput!.call(session, output),
  };
}

/** Drops the fields left undefined, so that the tools' defaults apply (a wire call leaves them out). */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * One SDK sandbox session: its commands on a UnifiedExecManager made at the first command (in the workspace, with the
 * manifest's environment), the rest the UnixLocal session's. stop() ends every process the commands started; the
 * next command starts a fresh manager. close(), shutdown() and delete() end them too and remove the workspace; a
 * command after them fails with SHUT_DOWN.
 */
export class UnifiedExecSandboxSession implements SandboxSession<UnixLocalSandboxSessionState> {
  private manager: UnifiedExecManager | undefined;
  /** Set by close(): the workspace is gone, so no command starts again (stop() leaves it open). */
  private closed = false;
  private readonly paths: CommandPaths;

  constructor(
    private readonly workspace: UnixLocalSandboxSession,
    private readonly options: UnifiedExecSandboxClientOptions,
  ) {
    this.paths = commandPaths(workspace);
  }

  get state(): UnixLocalSandboxSessionState {
    return this.workspace.state;
  }

  supportsPty(): boolean {
    return true;
  }

  async execCommand(args: ExecCommandArgs): Promise<string> {
    if (this.closed) throw shutDown(); // before the workspace, which is gone, is asked about the path
    refuseOtherUser(args.runAs);
    // Resolved as the SDK resolves it: within the workspace (or a granted path), else an error for the model.
    const workdir = this.workspace.resolveSandboxPath(args.workdir);
    return this.call('exec_command', {
      cmd: this.paths.translateCommandInput(args.cmd),
      workdir,
      shell: args.shell,
      login: args.login,
      tty: args.tty,
      yield_time_ms: args.yieldTimeMs,
      max_output_tokens: args.maxOutputTokens,
    });
  }

  async writeStdin(args: WriteStdinArgs): Promise<string> {
    return this.call('write_stdin', {
      session_id: args.sessionId,
      chars: args.chars,
      yield_time_ms: args.yieldTimeMs,
      max_output_tokens: args.maxOutputTokens,
    });
  }

  /** Codex's text for the call, or for its failure (`write_stdin failed: Unknown process id 7`): the model reads either. */
  private async call(name: 'exec_command' | 'write_stdin', args: Record<string, unknown>): Promise<string> {
    const outcome = await callTool(this.sessions(), name, defined(args));
    return this.paths.translateCommandOutput(outcome.text);
  }

  private sessions(): UnifiedExecManager {
    if (this.closed) throw shutDown();
    this.manager ??= new UnifiedExecManager({
      ...this.options,
      cwd: this.workspace.state.workspaceRootPath,
      env: { ...this.options.env, set: { ...this.options.env?.set, ...this.workspace.state.environment } },
    });
    return this.manager;
  }

  private async endCommands(): Promise<void> {
    const manager = this.manager;
    this.manager = undefined;
    await manager?.shutdown();
  }

  async stop(): Promise<void> {
    await this.endCommands();
    await this.workspace.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.endCommands();
    await this.workspace.close();
  }

  async shutdown(): Promise<void> {
    await this.close();
  }

  async delete(): Promise<void> {
    await this.close();
  }

  // The workspace's part, as UnixLocalSandboxClient does it.
  createEditor(runAs?: string): Editor {
    return this.workspace.createEditor(runAs);
  }
  viewImage(args: ViewImageArgs) {
    return this.workspace.viewImage(args);
  }
  readFile(args: ReadFileArgs) {
    return this.workspace.readFile(args);
  }
  listDir(args: ListDirectoryArgs) {
    return this.workspace.listDir(args);
  }
  pathExists(path: string, runAs?: string) {
    return this.workspace.pathExists(path, runAs);
  }
  directoryExists(path: string, runAs?: string) {
    return this.workspace.directoryExists(path, runAs);
  }
  materializeEntry(args: MaterializeEntryArgs) {
    return this.workspace.materializeEntry(args);
  }
  applyManifest(manifest: Manifest, runAs?: string) {
    return this.workspace.applyManifest(manifest, runAs);
  }
  persistWorkspace() {
    return this.workspace.persistWorkspace();
  }
  hydrateWorkspace(data: WorkspaceArchiveData, options?: WorkspaceArchiveOptions) {
    return this.workspace.hydrateWorkspace(data, options);
  }
  setArchiveLimits(limits?: SandboxArchiveLimits | null) {
    this.workspace.setArchiveLimits(limits);
  }
  resolveExposedPort(port: number) {
    return this.workspace.resolveExposedPort(port);
  }
}

/** Commands run as this process's user; the SDK's `runAs` for another user (which needs root there) is refused. */
function refuseOtherUser(runAs: string | undefined): void {
  if (runAs === undefined || runAs.trim() === '' || runAs.trim() === userInfo().username) return;
  throw invalidArgument(`runAs "${runAs}" is not supported by UnifiedExecSandboxClient: commands run as this user`);
}

/**
 * A SandboxClient for the OpenAI Agents SDK whose sessions run commands on unified-exec:
 * `run(agent, input, { sandbox: { client: new UnifiedExecSandboxClient() } })`. `options` go to each session's
 * UnifiedExecManager, `sandbox: 'workspace-write'` unless given (bubblewrap or Landlock: the session's workspace and
 * the temp folders writable, the rest of the machine read-only); `workspaceOptions` to the UnixLocalSandboxClient that makes and
 * keeps the workspaces (`workspaceBaseDir`, `snapshot`, ...; its files need Python 3, as there).
 */
export class UnifiedExecSandboxClient implements SandboxClient<
  UnixLocalSandboxClientOptions,
  UnixLocalSandboxSessionState
> {
  readonly backendId = 'unified_exec';
  readonly supportsDefaultOptions = true;
  private readonly workspaces: UnixLocalSandboxClient;

  private readonly options: UnifiedExecSandboxClientOptions;

  constructor(options: UnifiedExecSandboxClientOptions = {}, workspaceOptions: UnixLocalSandboxClientOptions = {}) {
    // A sandbox client sandboxes unless told otherwise: the workspace writable, the rest of the machine not.
    this.options = { sandbox: 'workspace-write', ...options };
    this.workspaces = new UnixLocalSandboxClient(workspaceOptions);
    // A wrong setting fails here, where the client is made, not at the model's first command.
    void new UnifiedExecManager(this.options).shutdown();
  }

  async create(
    args?: SandboxClientCreateArgs<UnixLocalSandboxClientOptions> | Manifest,
    manifestOptions?: UnixLocalSandboxClientOptions,
  ): Promise<UnifiedExecSandboxSession> {
    return new UnifiedExecSandboxSession(await this.workspaces.create(args, manifestOptions), this.options);
  }

  async resume(
    state: UnixLocalSandboxSessionState,
    options?: SandboxClientResumeOptions<UnixLocalSandboxClientOptions>,
  ): Promise<UnifiedExecSandboxSession> {
    return new UnifiedExecSandboxSession(await this.workspaces.resume(state, options), this.options);
  }

  serializeSessionState(state: UnixLocalSandboxSessionState): Promise<Record<string, unknown>> {
    return this.workspaces.serializeSessionState(state);
  }

  deserializeSessionState(state: Record<string, unknown>): Promise<UnixLocalSandboxSessionState> {
    return this.workspaces.deserializeSessionState(state);
  }
}
