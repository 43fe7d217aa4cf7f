import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { commandArgv } from './command.js';
import { PipeProcess } from './pipe-process.js';
import { PtyProcess, openTerminal, type OpenTerminal } from './pty-process.js';
import { GIT_LOCATION_VARIABLES, buildEnv, findProgram, policyKeeps } from './env.js';
import {
  HOST_FILE_FACTS,
  cleanPath,
  isShellName,
  parseEtcShells,
  systemShellProblem,
  writableRootOf,
} from './leave-sandbox.js';
import { resolveWorkdir } from './resolve.js';
import {
  ShellSnapshots,
  profileFiles,
  snapshotShell,
  type LoginPlan,
  type SnapshotRequest,
  type WaitingShell,
} from './shell-snapshot.js';
import {
  type CommandPlan,
  type CommandRequest,
  type ExecProcess,
  type Executor,
  type LifetimeHooks,
  type ProcessSpawner,
  type SpawnOptions,
  type StartedCommand,
} from './types.js';
import { Watchdog } from '../linux/watchdog.js';
import { PROCESS_TAG_VAR } from '../linux/process-tag.js';
import { standbyHandOver } from '../sandbox/sandbox-exec.js';
import { StandbyLaunchers } from './launcher-standby.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import { writableRoots } from '../sandbox/bwrap.js';

export interface LocalExecutorOptions {
  /**
   * Register every session with a watchdog process that kills it if this process dies without cleaning up
   * (even by SIGKILL). Default true.
   */
  watchdog?: boolean;
  /** Wraps sandboxed spawns in the sandbox; default: the process's shared launcher. */
  sandbox?: SandboxLauncher;
}

/** A command request as this machine runs it: the argv (its program resolved), directory and environment, checked. */
interface LocalPlan extends CommandPlan {
  argv: string[];
  env: Record<string, string>;
}

/**
 * Runs programs on this machine: a PTY when `tty` is set, pipes otherwise. From a command request it finds the
 * shell, resolves the working directory, builds the environment, runs login commands through a snapshot of the
 * login profile, and lays the sandbox; `spawn` starts a process from a complete spec (what an exec-server serves).
 */
export class LocalExecutor implements Executor, ProcessSpawner {
  readonly location = 'local';
  readonly appliesPatches = true;
  private readonly lifetime: LifetimeHooks | undefined;
  private readonly launcher: SandboxLauncher;
  /** Landlock launchers started ahead of their commands (on pipes); stopped by close(). */
  private readonly standby: StandbyLaunchers;
  /** Login profile snapshots, made by warmUp or the first login command; removed by close(). */
  private snapshots: ShellSnapshots | undefined;
  private closed = false;
  /** What prepare worked out for a request, for its start. */
  private readonly prepared = new WeakMap<
    CommandRequest,
    { plan: LocalPlan; login: LoginPlan | undefined; shell: WaitingShell | undefined; waitedMs: number }
  >();

  constructor(options: LocalExecutorOptions = {}) {
    this.launcher = options.sandbox ?? SandboxLauncher.shared();
    this.standby = new StandbyLaunchers(() => this.launcher.standbyArgv());
    if (options.watchdog ?? true) {
      const watchdog = Watchdog.shared();
      this.lifetime = { started: (pid, tag) => watchdog.watch(pid, tag), ended: (pid) => watchdog.unwatch(pid) };
    }
  }

  check(request: CommandRequest): CommandPlan {
    const { env: _, ...plan } = this.plan(request);
    return plan;
  }

  /**
   * Starts the sandbox's allowlist proxy, and finds how a login command line will run (through the snapshot when it
   * is ready; only a command leaving the sandbox waits for one); what it worked out is kept for `start`.
   */
  async prepare(request: CommandRequest): Promise<void> {
    if (request.sandbox !== undefined) await this.launcher.ready(request.sandbox);
    const plan = this.plan(request);
    const planning = performance.now();
    const { shell, login } = await this.loginWay(request, plan);
    this.prepared.set(request, { plan, login, shell, waitedMs: performance.now() - planning });
  }

  /**
   * Takes the login snapshot a login command line like `request` will run through, and resolves once it is ready or
   * could not be had (never rejects). Commands that start meanwhile wait for it as long as their snapshotWaitMs allows.
   */
  async warmUp(request: CommandRequest): Promise<void> {
    try {
      if (request.sandbox !== undefined) await this.launcher.ready(request.sandbox);
      const snapshot = this.snapshotRequest(request, this.plan(request));
      if (snapshot) await this.snapshots!.plan(snapshot);
    } catch {
      // What went wrong (no such shell, a sandbox that cannot start) is said by the command that meets it.
    }
  }

  async start(request: CommandRequest): Promise<StartedCommand> {
    if (this.closed) throw new Error('the local executor is closed');
    const prepared = this.prepared.get(request);
    this.prepared.delete(request);
    const plan = prepared?.plan ?? this.plan(request);
    const { sandbox } = request;
    const warnings: string[] = [];
    let { argv } = plan;
    // A login command line: in the shell of the snapshot's capture, kept for it, else through a snapshot of the login
    // profile when one is ready, else a real login shell.
    const planning = performance.now();
    const way = prepared ?? (await this.loginWay(request, plan));
    let login = way.login;
    if (way.shell) {
      // The capture's shell has printed the snapshot, which is written at once: the plan through it is had now.
      login = await this.loginPlan(request, plan, Infinity);
      const script = 'script' in request.command ? request.command.script : undefined;
      const handedOver =
        !this.closed && login?.argv && script !== undefined
          ? await way.shell.run(login.argv(script), request.stdin === true)
          : undefined;
      if (handedOver) {
        const waited = prepared ? prepared.waitedMs : performance.now() - planning;
        return { process: handedOver, sandbox, warnings, ...(waited >= 1 ? { waitedMs: waited } : {}) };
      }
      way.shell.release();
    }
    const waitedMs = prepared ? prepared.waitedMs : performance.now() - planning;
    // Leaving the sandbox: the PATH the profile left, cleaned like the one it started with (no relative entries, no
    // folders of the writable roots), so `./node_modules/.bin` a profile adds does not find the agent's programs.
    const roots = plan.writableRoots;
    const cleaned = roots && login?.path !== undefined ? cleanPath(login.path, roots, HOST_FILE_FACTS) : undefined;
    if (login?.argv && 'script' in request.command) argv = login.argv(request.command.script, cleaned);
    else if (login?.warning) warnings.push(login.warning);
    if (this.closed) throw new Error('the local executor is closed');
    const dir =
      request.workdirId !== undefined
        ? openApprovedDir(plan.cwd, request.workdirId, request.workdir ?? plan.cwd)
        : undefined;
    let process: ExecProcess;
    try {
      process = await this.spawn({
        argv,
        // The child changes into the directory this fd holds: a folder swapped in under its path since is not entered.
        cwd: dir === undefined ? plan.cwd : `/proc/self/fd/${dir}`,
        env: dir === undefined ? plan.env : { ...plan.env, PWD: plan.cwd },
        tty: request.tty,
        ...(request.tty ? { cols: request.cols, rows: request.rows } : {}),
        ...(!request.tty && request.stdin ? { pipeStdin: true } : {}),
        ...(sandbox ? { sandbox } : {}),
      });
    } finally {
      // The child has changed directory by now: it has exec'd (or failed to) before the start resolves.
      if (dir !== undefined) closeSync(dir);
    }
    // Closed while it started: nothing may run on.
    if (this.closed) {
      await process.terminate({ force: true });
      throw new Error('the local executor is closed');
    }
    return { process, sandbox, warnings, ...(waitedMs >= 1 ? { waitedMs } : {}) };
  }

  async prepareSpawn(options: SpawnOptions): Promise<void> {
    if (options.sandbox !== undefined) await this.launcher.ready(options.sandbox);
  }

  async spawn(options: SpawnOptions): Promise<ExecProcess> {
    if (options.sandbox === undefined) return this.startProcess(options);
    const inner = insideSandbox(options);
    // A Landlock launcher started ahead runs the command when one is waiting (see StandbyLaunchers); on a terminal,
    // one made now, which the launcher takes.
    let exited!: () => void;
    const standby =
      !inner.cwd.startsWith('/proc/') && this.launcher.takesStandby(options.sandbox)
        ? this.standby.take(new Promise<void>((resolve) => (exited = resolve)))
        : undefined;
    const sandboxed = this.launcher.wrap(options.sandbox, inner, { standby: standby !== undefined });
    let proc: ExecProcess;
    try {
      const spec = { ...inner, argv: sandboxed.argv, env: sandboxed.env, supervisorDepth: sandboxed.supervisorDepth };
      if (standby !== undefined && sandboxed.handOver !== undefined) {
        const { options: launch, argv } = sandboxed.handOver;
        const env = { ...sandboxed.env, [PROCESS_TAG_VAR]: standby.tag };
        let terminal: OpenTerminal | undefined;
        try {
          terminal = inner.tty ? openTerminal(inner.cols, inner.rows) : undefined;
          const spawn = { cwd: inner.cwd, env, pipeStdin: inner.pipeStdin === true, tty: terminal?.pty };
          standby.handOver(standbyHandOver(launch, spawn, argv));
        } catch (err) {
          standby.child.kill('SIGKILL');
          if (terminal !== undefined) for (const fd of [terminal.master, terminal.slave]) closeSync(fd);
          throw err;
        }
        proc = terminal
          ? PtyProcess.adopt(spec, this.lifetime, { launcher: standby, terminal })
          : new PipeProcess(spec, this.lifetime, standby);
      } else {
        proc = await this.startProcess(spec);
      }
    } catch (err) {
      exited?.();
      sandboxed.release();
      throw err;
    }
    proc.onExit(() => exited?.());
    // After the exit has been answered: releasing may read /proc, which the reply need not wait for.
    proc.onExit(() => setImmediate(() => sandboxed.release()));
    // The leader's pid only while it runs: once it has exited, the pid may be another process's.
    const refusal = sandboxed.networkRefusal;
    const leader = () => (proc.exitInfo === undefined ? proc.pid : undefined);
    return refusal ? Object.assign(proc, { networkRefusal: () => refusal(leader()) }) : proc;
  }

  /**
   * Removes the login snapshots and starts nothing more. An executor a manager made is closed with it; an injected
   * one by its caller (else its snapshots are removed when this process exits).
   */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.removeSnapshots(), this.standby.close()]);
    // A capture's sandbox is released once its exit is answered (see spawn): before this process may exit.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * How a login command line of `request` runs: through the snapshot when it is ready or, while it is being taken,
   * once it is (for up to `request.snapshotWaitMs`), else as a real login shell. A command leaving the sandbox waits
   * for its snapshot however long: only through one is the PATH its profile leaves cleaned (see start), and it
   * already waited for its approval.
   */
  private async loginPlan(
    request: CommandRequest,
    plan: LocalPlan,
    waitMs = request.snapshotWaitMs ?? 0,
  ): Promise<LoginPlan | undefined> {
    const snapshot = this.snapshotRequest(request, plan);
    if (!snapshot) return undefined;
    if (plan.writableRoots || waitMs === Infinity) return this.snapshots!.plan(snapshot);
    return this.snapshots!.planWithin(snapshot, waitMs);
  }

  /**
   * How a command line runs: in the shell of the snapshot's capture under way, kept for it once it has printed the
   * snapshot (see ShellSnapshots.takeShell), when it can be: a login command on pipes, in the directory the capture
   * runs in (and so its sandbox and environment: the snapshot's fingerprint), not leaving the sandbox, within
   * `request.snapshotWaitMs`. Else its login plan, with what is left of that wait.
   */
  private async loginWay(
    request: CommandRequest,
    plan: LocalPlan,
  ): Promise<{ shell?: WaitingShell | undefined; login: LoginPlan | undefined }> {
    const { command } = request;
    const started = performance.now();
    const waitMs = request.snapshotWaitMs ?? 0;
    const snapshot = this.snapshotRequest(request, plan);
    const mayTake =
      snapshot !== undefined &&
      !request.tty &&
      request.workdirId === undefined &&
      !plan.writableRoots &&
      'script' in command;
    const shell = mayTake ? await this.snapshots!.takeShell(snapshot, plan.cwd, waitMs) : undefined;
    if (shell) return { shell, login: undefined };
    return { login: await this.loginPlan(request, plan, waitMs - (performance.now() - started)) };
  }

  /** What the snapshot of a login command line of `request` depends on; undefined when it runs without one. */
  private snapshotRequest(request: CommandRequest, plan: LocalPlan): SnapshotRequest | undefined {
    const { command, sandbox } = request;
    if (!('script' in command) || !command.login || !request.shellSnapshot || this.closed) return undefined;
    if (!this.snapshots) {
      this.snapshots = new ShellSnapshots(this);
      process.once('exit', this.removeSnapshots);
    }
    return {
      shell: plan.argv[0]!,
      env: plan.env,
      cwd: plan.cwd,
      ...(sandbox ? { sandbox } : {}),
      keep: policyKeeps(request.env),
    };
  }

  private readonly removeSnapshots = (): Promise<void> => {
    process.removeListener('exit', this.removeSnapshots);
    const ending = this.snapshots?.close() ?? Promise.resolve();
    this.snapshots = undefined;
    return ending;
  };

  /**
   * The argv, directory and environment of `request`, its program resolved to the path that runs; throws a plain
   * Error saying what is missing. A command leaving its sandbox gets the PATH and shell check of leave-sandbox.ts.
   */
  private plan(request: CommandRequest): LocalPlan {
    const env = buildEnv(request.env);
    let cwd: string;
    try {
      cwd = resolveWorkdir(request.workdir ?? request.defaultWorkdir, request.defaultWorkdir);
    } catch (err) {
      throw new Error(`${(err as Error).message}; pass an existing \`${request.workdirName ?? 'workdir'}\``, {
        cause: err,
      });
    }
    const { leaving } = request;
    // Outside the sandbox, in the real directory: a link the agent points elsewhere after the question changes nothing.
    if (leaving) cwd = HOST_FILE_FACTS.realPath(cwd) ?? cwd;
    const roots = leaving ? writableRoots(leaving.sandbox, env.TMPDIR, HOST_FILE_FACTS.realPath) : undefined;
    if (roots && env.PATH !== undefined) env.PATH = cleanPath(env.PATH, roots, HOST_FILE_FACTS);
    const argv = commandArgv(request.command);
    const given = argv[0]!;
    const isScript = 'script' in request.command;
    const program = findProgram(given, env, cwd);
    if (program === undefined) {
      const where = roots ? ' outside the folders the sandbox lets commands write' : '';
      throw new Error(
        isScript
          ? `shell \`${given}\` was not found${where} or is not executable; pass an installed shell such as /bin/bash`
          : `\`${given}\` was not found${where} or is not executable`,
      );
    }
    argv[0] = program;
    const plan: LocalPlan = { argv, cwd, env, ...(env.PATH !== undefined ? { path: env.PATH } : {}) };
    if (!leaving || !roots) return plan;
    plan.writableRoots = roots;
    plan.gitEnv = Object.fromEntries(
      [...GIT_LOCATION_VARIABLES, 'HOME'].flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
    );
    plan.cwdId = directoryId(statSync(cwd));
    const { command } = request;
    const home = env.HOME ?? homedir();
    if ('script' in command && command.login) {
      const warnings = profileWarnings(program, home, roots);
      if (warnings.length > 0) plan.warnings = warnings;
    }
    if (isScript || isShellName(program)) {
      const configured = findProgram(leaving.configuredShell, env, cwd) ?? leaving.configuredShell;
      const problem = systemShellProblem(program, [...etcShells(), configured], roots, HOST_FILE_FACTS);
      if (problem !== undefined) {
        plan.refusal = `the shell \`${given}\`${given === program ? '' : ` (${program})`} may not run a command outside the sandbox: ${problem}. Outside the sandbox a command runs only with an installed system shell: leave \`shell\` out (this server's is ${leaving.configuredShell}), or name one that /etc/shells lists, such as /bin/bash; or run it inside the sandbox (leave out sandbox_permissions).`;
      }
    }
    return plan;
  }

  private async startProcess(options: SpawnOptions): Promise<ExecProcess> {
    return options.tty ? PtyProcess.start(options, this.lifetime) : new PipeProcess(options, this.lifetime);
  }
}

/**
 * What the sandbox runs: argv[0] is the program's name inside it, not bubblewrap's; bash's `exec -a` gives it there
 * (the same process, so it stays the sandbox's child).
 */
function insideSandbox(options: SpawnOptions): SpawnOptions {
  const { arg0, ...rest } = options;
  if (arg0 === undefined || arg0 === options.argv[0]) return rest;
  return { ...rest, argv: ['/bin/bash', '-c', 'exec -a "$0" "$@"', arg0, ...options.argv] };
}

/** The shells /etc/shells lists (none when it cannot be read). */
function etcShells(): string[] {
  try {
    return parseEtcShells(readFileSync('/etc/shells', 'utf8'));
  } catch {
    return [];
  }
}

/** A directory's identity: its device and inode. */
const directoryId = (stat: { dev: number; ino: number }) => `${stat.dev}:${stat.ino}`;

/**
 * An fd on the directory at `path`, when it is still the one approved (`id`, see CommandPlan.cwdId, shown as
 * `shown`); throws when another folder now has its name (the agent swapped it after the person read the form).
 */
function openApprovedDir(path: string, id: string, shown: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
  const now = directoryId(fstatSync(fd));
  if (now === id) return fd;
  closeSync(fd);
  throw new Error(
    `the directory ${shown} is not the one approved: it was replaced after the question was asked (it now leads to ${path}, device and inode ${now}, not ${id}); not run`,
  );
}

/**
 * What a login `shell` reads first that commands in the sandbox could have written: the home folder itself in a
 * writable root, or a startup file whose real path lies in one (a `~/.bashrc` linked into the workspace).
 */
function profileWarnings(shell: string, home: string, roots: readonly string[]): string[] {
  const homeIn = writableRootOf(home, roots, HOST_FILE_FACTS);
  if (homeIn !== undefined) {
    return [
      `Warning: this login shell first runs the login profile in ${home}, which lies in ${homeIn}: commands in the sandbox can write there, so the agent may have changed it.`,
    ];
  }
  return profileFiles(snapshotShell(shell) ?? 'dash', home).flatMap((file) => {
    const real = HOST_FILE_FACTS.realPath(file);
    const root = real === undefined ? undefined : writableRootOf(real, roots, HOST_FILE_FACTS);
    if (root === undefined) return [];
    const where = real === file ? file : `${file} (a link to ${real})`;
    return [
      `Warning: this login shell first runs ${where}, which lies in ${root}: commands in the sandbox can write there, so the agent may have changed it.`,
    ];
  });
}
