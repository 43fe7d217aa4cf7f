import { getEventListeners } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pLimit from 'p-limit';
import '../util/dispose-symbol.js';
import type { z } from 'zod';
import { commandLine } from '../approval/command-safety.js';
import { truncateForModel } from '../buffer/truncate.js';
import { InputWaitPolicy } from '../input-wait/policy.js';
import { deadlinePolicy, type EarlyReturn, type ReturnPolicy, type WatchContext } from '../input-wait/return-policy.js';
import { detectDenial } from '../sandbox/denial.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import {
  type CommandPlan,
  type CommandRequest,
  type Disposable,
  type ExecProcess,
  type Executor,
  type StartedCommand,
} from '../spawn/types.js';
import {
  LARGE_REPLY_CHARS,
  MAX_OUTPUT_DELTAS,
  SEND_INPUT_WAIT_MS,
  SESSION_WARNING_THRESHOLD,
  STATE_PROBE_MS,
} from './constants.js';
import { asSpawnFailed, cancelled, limitExceeded, shutDown, stdinClosed } from './errors.js';
import { CommandGate, retriedNote, type GateCall } from './gate.js';
import { commandArgv } from '../spawn/command.js';
import { LOST_EXIT_CODE } from '../spawn/process-core.js';
import { ExecSession } from './exec-session.js';
import { ExecutorSet, type NamedExecutor } from './executor-set.js';
import { killOnExit } from './exit-guard.js';
import { newChunkId, randomSessionId } from './ids.js';
import { canonicalLineWarning, modeMatters, wakesReader } from './input-lines.js';
import { runToEnd } from './one-shot.js';
import { applyPatchCall, patchRequest } from './patch-call.js';
import {
  closeSessionRequest,
  execCommandRequest,
  parseArguments,
  shellRequest,
  writeStdinRequest,
  type ShellRequest,
  type ShellResponse,
  type ExecCommandRequest,
  type WriteStdinRequest,
} from './requests.js';
import { approvalPolicyOf, resolveSettings, sandboxPolicyOf, type ResolvedSettings } from './settings.js';
import type { SessionBudget } from './budget.js';
import { SessionStore } from './store.js';
import {
  checkTerminalFields,
  keysToBytes,
  resizeTerminal,
  screenForReply,
  sessionEnvPolicy,
  terminalSize,
  type ScreenChoice,
} from './terminal.js';
import { clampPollTime, clampYieldTime } from './timing.js';
import type {
  CallOptions,
  ClosedSession,
  ExecResponse,
  ManagerOptions,
  SessionInfo,
  SessionState,
  SessionWatch,
  SessionWatcher,
} from './types.js';

/** What one call asks of the wait-and-answer step. */
interface Collect {
  /** performance.now() when the call came in (its wall time counts from here). */
  started: number;
  /**
   * performance.now() when the yield ends. A new session's yield starts once its process is started, as Codex's
   * does: starting a process on a loaded machine can take longer than the whole 250 ms floor.
   */
  deadline: number;
  maxOutputTokens: number;
  warnings: string[];
  trigger: WatchContext['trigger'];
  beforeInput?: unknown;
  /** The caller's subscription to the session's output: ended before the reply drains, so no delta comes after it. */
  output?: Disposable | undefined;
  /** Whether the reply shows the terminal's screen. */
  screen: ScreenChoice;
  /** The caller gave up: stop waiting, deliver nothing. */
  signal?: AbortSignal | undefined;
}

/**
 * What a command that waited for a login snapshot keeps of its yield, to run and answer: from the snapshot's end to a
 * fresh server's answer, `echo hello` through it took 21 ms in the default sandbox (docs/benchmarks.md, figure 22).
 * Past it, a real login shell starts; that can no more end within the yield than a late snapshot, so a longer wait
 * never costs an answer that was to be had.
 */
const SNAPSHOT_WAIT_SLACK_MS = 30;

/** Why a call's wait is aborted once it is over, while its policy still watches: a reason of our own, where abort() would build a DOMException. */
const WAIT_OVER = Symbol('the wait is over');

/** The caller's `onOutput` for one call: called at most MAX_OUTPUT_DELTAS times, and its throws are not the call's. */
function boundedListener(options: CallOptions | undefined): ((text: string) => void) | undefined {
  const listener = options?.onOutput;
  if (!listener) return undefined;
  let left = MAX_OUTPUT_DELTAS;
  return (text) => {
    if (left <= 0) return;
    left--;
    try {
      listener(text);
    } catch {
      // A listener's failure (a client gone, say) is no failure of the command; the reply still carries the output.
    }
  };
}

/**
 * The settings with the sandbox's backend named: the one given, else the one this process's launcher picks (probed
 * once per process) when sessions run sandboxed here. Left unnamed when none works: the first spawn says why.
 */
function withSandboxBackend(settings: ResolvedSettings, injected: Executor | undefined): ResolvedSettings {
  if (settings.sandboxBackend || settings.sandbox === 'danger-full-access' || injected) return settings;
  try {
    return { ...settings, sandboxBackend: SandboxLauncher.shared().backendInUse() };
  } catch {
    return settings;
  }
}

/**
 * What `executor` would run for `request` (see Executor.check), failures as SPAWN_FAILED errors. An executor that
 * cannot check here runs the argv and directory as asked; a command leaving the sandbox there may not name a shell
 * of its own, which nothing here can check.
 */
function checkCommand(executor: Executor, request: CommandRequest): CommandPlan {
  try {
    if (executor.check) return executor.check(request);
  } catch (err) {
    throw asSpawnFailed(err);
  }
  const plan: CommandPlan = { argv: commandArgv(request.command), cwd: request.workdir ?? '' };
  const { command, leaving } = request;
  if (leaving && 'script' in command && command.shell !== leaving.configuredShell) {
    return {
      ...plan,
      refusal: `the shell \`${command.shell}\` may not run a command outside the sandbox on ${executor.location ?? 'local'}: it cannot be checked from here, and a command leaving the sandbox there runs only with this server's configured shell. Leave \`shell\` out (this server's is ${leaving.configuredShell}), or run it inside the sandbox (leave out sandbox_permissions).`,
    };
  }
  return plan;
}

/** What the gate is told of a planned command (GateCall): the plan, with what the plan does not say. */
function gateCall(plan: CommandPlan, request: CommandRequest, command: string, location: string): GateCall {
  return {
    plan,
    command,
    tty: request.tty,
    ...('script' in request.command ? { shell: { login: request.command.login } } : {}),
    ...(location !== 'local' ? { location } : {}),
  };
}

/** Whether a write is Ctrl-C to a process without a terminal that the executor can signal: SIGINT, not input. */
function isInterrupt(req: { chars: string; keys?: unknown[] | undefined }, process: ExecProcess): boolean {
  return req.chars === '\u0003' && (req.keys?.length ?? 0) === 0 && !process.tty && process.interrupt !== undefined;
}

/**
 * Runs commands for a model: exec_command starts one and waits a bounded time; a program still running is kept
 * under a session id that write_stdin types into and polls. Every call answers with what was printed meanwhile.
 */
export class UnifiedExecManager {
  /** The settings in force, every default filled in: what the tools' texts quote (see ExecSessions.settings). */
  readonly settings: Readonly<ResolvedSettings>;
  private readonly store: SessionStore;
  private readonly spawnLimit: ReturnType<typeof pLimit>;
  /** Where sessions run, by name. */
  private readonly executors: ExecutorSet;
  private readonly clock: () => number;
  private readonly warningThreshold: number;
  private readonly returnPolicy: ReturnPolicy;
  private readonly unguard: () => void;
  private readonly budget: SessionBudget | undefined;
  private readonly leaveBudget: Disposable | undefined;
  private shutdownPromise: Promise<void> | undefined;
  /** The sandbox and approval policy commands pass through. */
  private readonly gate: CommandGate;

  constructor(options: ManagerOptions = {}) {
    const { executor, idGenerator, clock, returnPolicy, budget, onApproval, ...settings } = options ?? {};
    this.settings = withSandboxBackend(resolveSettings(settings), executor);
    this.gate = new CommandGate(sandboxPolicyOf(this.settings), approvalPolicyOf(this.settings), onApproval);
    this.executors = new ExecutorSet(
      this.settings.executors,
      this.settings.defaultExecutor,
      executor,
      this.settings.sandboxBackend,
    );
    this.clock = clock ?? Date.now;
    this.store = new SessionStore({ nextId: idGenerator ?? randomSessionId });
    this.budget = budget;
    this.leaveBudget = budget?.join(this.store);
    this.warningThreshold = Math.min(SESSION_WARNING_THRESHOLD, Math.max(1, this.settings.maxSessions - 4));
    this.returnPolicy =
      returnPolicy ?? (this.settings.returnOn === 'deadline' ? deadlinePolicy : new InputWaitPolicy());
    this.spawnLimit = pLimit(this.settings.maxConcurrentSpawns);
    this.unguard = killOnExit(() =>
      this.store.list().flatMap((s) => (s.process.pid === undefined ? [] : [s.process.pid])),
    );
  }

  /**
   * Starts `command` and answers once it exits or its yield time is up; a live program gets a session id.
   * `options.onOutput` streams the output while the call waits (see CallOptions).
   */
  async execCommand(request: ExecCommandRequest, options?: CallOptions): Promise<ExecResponse> {
    const waitedBefore = Math.max(0, options?.waitedMs ?? 0);
    const started = performance.now() - waitedBefore;
    this.assertOpen();
    const onOutput = boundedListener(options);
    const req = parseArguments(execCommandRequest, request);
    checkTerminalFields(req, req.tty, this.settings.screens);
    const where = this.executors.get(req.executor);
    const command = this.commandRequest(req, waitedBefore);
    // Planned for where it will run: a call that asks to leave the sandbox is checked as it would run outside.
    const leaving = this.leaving();
    const escalated = this.gate.escalates(req.sandboxPermissions);
    const plan = checkCommand(where.executor, { ...command, ...(escalated && leaving ? { leaving } : {}) });
    const { cwd } = plan;
    const call = gateCall(plan, command, req.command, where.location);
    // As in Codex, `apply_patch <<'EOF'` is not run in a shell: the manager applies it, in the same sandbox.
    const patch = where.executor.appliesPatches ? patchRequest(req.command, cwd) : undefined;
    const sandbox = await this.gate.admit({
      ...call,
      permissions: req.sandboxPermissions,
      justification: req.justification,
    });
    if (options?.signal?.aborted) throw cancelled();
    // The directory as checked: relative to nothing any more.
    const checked = { ...command, workdir: cwd === '' ? command.workdir : cwd };
    const outsideRequest: CommandRequest = {
      ...checked,
      ...(leaving ? { leaving } : {}),
      ...(plan.cwdId !== undefined ? { workdirId: plan.cwdId } : {}),
    };
    const outside = () => {
      const checkedOutside = checkCommand(where.executor, outsideRequest);
      // Run again in the directory this question shows.
      if (checkedOutside.cwdId !== undefined) outsideRequest.workdirId = checkedOutside.cwdId;
      return gateCall(checkedOutside, command, req.command, where.location);
    };
    if (patch) {
      return applyPatchCall(this.gate, {
        call,
        outside,
        request: patch,
        sandbox,
        env: this.settings.env,
        started,
        executor: where.executor,
      });
    }
    const run = { where, started, onOutput, signal: options?.signal, waitedBefore };
    const response = await this.start(req, {
      ...run,
      request: sandbox ? { ...checked, sandbox } : outsideRequest,
    });
    if (!response.sandboxDenial) return response;
    const next = await this.gate.afterDenial(outside, response.sandboxDenial);
    if (!next.retry) {
      response.warnings.push(next.note);
      return response;
    }
    const retried = await this.start(req, {
      ...run,
      request: outsideRequest,
      started: performance.now(),
      waitedBefore: 0,
    });
    retried.warnings.unshift(retriedNote(response.sandboxDenial));
    return retried;
  }

  /**
   * Codex's one-shot `shell` tool: runs an argv to completion (or its time limit) under the same sandbox and approval
   * policy as exec_command, and answers once. Not a session: nothing of it outlives the call. `options.onOutput`
   * streams stdout and stderr as they come (see CallOptions).
   */
  async shell(request: ShellRequest, options?: CallOptions): Promise<ShellResponse> {
    this.assertOpen();
    const onOutput = boundedListener(options);
    const req = parseArguments(shellRequest, request);
    const where = this.executors.get(req.executor);
    const command: CommandRequest = {
      command: { argv: req.command },
      workdir: req.cwd,
      defaultWorkdir: this.settings.cwd,
      env: this.settings.env ?? {},
      tty: false,
    };
    const leaving = this.leaving();
    const escalated = this.gate.escalates(req.sandboxPermissions);
    const plan = checkCommand(where.executor, { ...command, ...(escalated && leaving ? { leaving } : {}) });
    const { cwd } = plan;
    const described = commandLine(req.command);
    const sandbox = await this.gate.admit({
      ...gateCall(plan, command, described, where.location),
      permissions: req.sandboxPermissions,
      justification: req.justification,
    });
    const checked = { ...command, workdir: cwd === '' ? command.workdir : cwd };
    const outsideRequest: CommandRequest = {
      ...checked,
      ...(leaving ? { leaving } : {}),
      ...(plan.cwdId !== undefined ? { workdirId: plan.cwdId } : {}),
    };
    const run = async (inside: SandboxPolicy | undefined) => {
      const { outcome, sandbox: laid } = await runToEnd(
        where.executor,
        inside ? { ...checked, sandbox: inside } : outsideRequest,
        {
          ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
          ...(onOutput ? { onOutput } : {}),
          keep: 'first',
        },
      );
      const { exitCode, aggregatedOutput: output, durationMs, timedOut } = outcome;
      return { response: { exitCode, output, durationMs, timedOut }, laid };
    };
    const { response, laid } = await run(sandbox);
    const denial = detectDenial(laid, response.exitCode, response.output);
    if (!denial) return response;
    const outside = () => {
      const checkedOutside = checkCommand(where.executor, outsideRequest);
      // Run again in the directory this question shows.
      if (checkedOutside.cwdId !== undefined) outsideRequest.workdirId = checkedOutside.cwdId;
      return gateCall(checkedOutside, command, described, where.location);
    };
    const next = await this.gate.afterDenial(outside, denial);
    if (next.retry) return (await run(undefined)).response;
    // The reply has no header lines: what the sandbox refused goes after the output.
    return { ...response, output: `${response.output.replace(/\n?$/, '\n')}${next.note}\n` };
  }

  /**
   * Gets the default executor ready for the commands to come, in the background: takes the snapshot of the login
   * profile that an `exec_command` with the default shell and `login` will load, so the first one finds it ready. A
   * server calls it once it is connected; a login call that comes before it is done waits for it while it can still
   * answer within its yield, then runs a real login shell. Resolves when done or given up; never rejects. Does nothing with `shellSnapshot: false`.
   */
  async warmUp(): Promise<void> {
    if (this.shutdownPromise) return;
    const { executor } = this.executors.get(undefined);
    const req = parseArguments(execCommandRequest, { command: 'true' });
    const command = this.commandRequest(req);
    const sandbox = this.gate.sandbox;
    await executor.warmUp?.(sandbox ? { ...command, sandbox } : command);
  }

  /** The request of an `exec_command` as its executor gets it, before the gate adds the sandbox. */
  private commandRequest(req: z.output<typeof execCommandRequest>, waitedBefore = 0): CommandRequest {
    return {
      command: { script: req.command, shell: req.shell ?? this.settings.defaultShell, login: req.login },
      workdir: req.cwd,
      defaultWorkdir: this.settings.cwd,
      env: sessionEnvPolicy(this.settings.env, req.screen),
      tty: req.tty,
      ...(req.tty ? terminalSize(req) : {}),
      shellSnapshot: this.settings.shellSnapshot,
      // A login snapshot being taken (a fresh server's) is waited for while the command can still answer within its
      // yield, which counts from before the wait (see start).
      snapshotWaitMs: Math.max(0, clampYieldTime(req.yieldTimeMs) - SNAPSHOT_WAIT_SLACK_MS - waitedBefore),
    };
  }

  /**
   * What a command that leaves the sandbox is planned with (see CommandLeaving); undefined without a sandbox, where
   * nothing is left and every command runs as planned.
   */
  private leaving(): CommandRequest['leaving'] {
    const sandbox = this.gate.sandbox;
    return sandbox ? { sandbox, configuredShell: this.settings.defaultShell } : undefined;
  }

  /**
   * Types `chars` into a tty session (empty: just poll) and answers with what came back. `options.onOutput`
   * streams the output while the call waits (see CallOptions).
   */
  async writeStdin(request: WriteStdinRequest, options?: CallOptions): Promise<ExecResponse> {
    const started = performance.now();
    this.assertOpen();
    const onOutput = boundedListener(options);
    const req = parseArguments(writeStdinRequest, request);
    const session = this.store.get(req.sessionId);
    // Without a terminal, Ctrl-C alone is an interrupt (Codex's rule); any other input has nowhere to go.
    const interrupt = isInterrupt(req, session.process);
    if ((req.chars !== '' || (req.keys?.length ?? 0) > 0) && !session.process.tty && !interrupt) throw stdinClosed();
    checkTerminalFields(req, session.process.tty, this.settings.screens);
    const bytes = Buffer.byteLength(req.chars, 'utf8');
    if (bytes > this.settings.maxWriteBytes) {
      throw limitExceeded(
        `\`chars\` is ${bytes} bytes, over the ${this.settings.maxWriteBytes}-byte limit of one write; write it in parts or pass a file`,
      );
    }
    const pending = session.process.pendingInputBytes ?? 0;
    if (bytes > 0 && pending + bytes > this.settings.maxWriteBytes) {
      throw limitExceeded(
        `The program has not read ${pending} bytes of earlier input; with \`chars\` that would be over the ${this.settings.maxWriteBytes}-byte limit. Poll, send Ctrl-C ("\\u0003") or close the session`,
      );
    }
    // Keys and a resize are input too: the program answers them (a resize with a redraw).
    const acts = req.chars !== '' || (req.keys?.length ?? 0) > 0 || req.cols !== undefined || req.rows !== undefined;
    const signal = options?.signal;
    return session.exclusive(async () => {
      // Given up while queued behind another call: nothing typed, nothing taken.
      if (signal?.aborted) throw cancelled();
      const call: Collect = {
        started,
        deadline:
          started +
          (acts ? clampYieldTime(req.yieldTimeMs) : clampPollTime(req.yieldTimeMs, this.settings.maxBackgroundPollMs)),
        maxOutputTokens: req.maxOutputTokens,
        warnings: [],
        trigger: acts ? 'input' : 'poll',
        // A poll after input another call or sendInput wrote: the program must have run since to count as waiting.
        ...(acts ? {} : { beforeInput: session.inputMark }),
        // From when this call has the session: a call queued behind another does not stream that one's output.
        output: onOutput && session.onOutput(onOutput),
        screen: req.screen ?? session.screenChoice,
        signal,
      };
      // Exited or closed while this call queued behind another: it answers with how the session ended, and types
      // nothing.
      if (acts && session.state === 'running') {
        const typed = req.chars + keysToBytes(session, req.keys ?? []);
        const canonical = modeMatters(typed) ? session.process.terminal?.localModes()?.canonical : undefined;
        const cut = canonicalLineWarning(typed, canonical);
        if (cut) call.warnings.push(cut);
        call.beforeInput = this.returnPolicy.beforeInput?.(session.process);
        session.inputMark = wakesReader(typed, canonical) ? call.beforeInput : undefined;
        resizeTerminal(session, req);
        if (interrupt) session.process.interrupt?.();
        else if (typed !== '') await this.type(session, typed, call.deadline, signal);
      }
      const response = await this.collect(session, call);
      if (response.sandboxDenial) response.warnings.push(this.gate.denialNote(response.sandboxDenial));
      const unread = response.state === 'exited' ? 0 : (session.process.pendingInputBytes ?? 0);
      if (unread > 0) response.warnings.push(`Input pending: ${unread} bytes not yet read by the program`);
      return response;
    });
  }

  /**
   * Writes input, waiting at most until `deadline` (performance.now()) for the program to take it: what it has not
   * read by then stays queued for the session (later calls are not held up) and the reply says how much. A write
   * the session's exit or close cuts short is abandoned; the reply reports the exit.
   */
  private async type(session: ExecSession, chars: string, deadline: number, signal?: AbortSignal): Promise<void> {
    let sub: Disposable | undefined;
    let timer: NodeJS.Timeout | undefined;
    let aborted: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => {
      sub = session.onActivity(() => session.state !== 'running' && resolve());
      timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
      aborted = () => resolve();
      signal?.addEventListener('abort', aborted, { once: true });
    });
    try {
      await Promise.race([session.process.write(chars).catch(() => undefined), ended]);
    } finally {
      sub?.dispose();
      clearTimeout(timer);
      if (aborted) signal?.removeEventListener('abort', aborted);
    }
  }

  /** Every session still held, oldest first: models lose ids after context compaction and find them here. */
  listSessions(): SessionInfo[] {
    return this.store.list().map((s) => ({
      sessionId: s.id,
      command: s.command,
      tty: s.process.tty,
      ...(s.process.pid !== undefined ? { pid: s.process.pid } : {}),
      startedAt: new Date(s.startedAtMs),
      lastUsedAt: new Date(s.lastUsedMs),
      executor: s.executor,
      location: this.executors.get(s.executor).location,
      exited: s.state !== 'running',
      ...(s.exitInfo ? { exitCode: s.exitInfo.exitCode } : {}),
      bufferedBytes: s.bufferedBytes,
    }));
  }

  /**
   * For a person watching (the live view): the session's latest output (up to 64 KiB, read by the model or not), then
   * each chunk as it comes, none of it taken from the model's replies; `ended` once the session stops running.
   */
  watchSession(sessionId: number, watcher: SessionWatcher): SessionWatch {
    this.assertOpen();
    const session = this.store.get(sessionId);
    const { recent, subscription } = session.watch((text) => watcher.output(text));
    let done = false;
    const stop = () => {
      done = true;
      activity.dispose();
      subscription.dispose();
    };
    const check = () => {
      if (session.state === 'running' || done) return;
      stop();
      // A closed session's exit status comes once its tree is gone.
      void session.settled().then(() => watcher.ended(session.exitInfo?.exitCode));
    };
    const activity = session.onActivity(check);
    queueMicrotask(check); // one that has already exited
    return { recent, tty: session.process.tty, ...session.terminalSize, dispose: stop };
  }

  /**
   * Types into a tty session for a person (the live view), without waiting for output or taking any: the model's
   * next reply has what the program answered. Waits at most SEND_INPUT_WAIT_MS for the program to take it.
   */
  async sendInput(sessionId: number, chars: string): Promise<void> {
    this.assertOpen();
    const session = this.store.get(sessionId);
    if (!session.process.tty) throw stdinClosed();
    if (Buffer.byteLength(chars, 'utf8') > this.settings.maxWriteBytes) {
      throw limitExceeded(`Input over the ${this.settings.maxWriteBytes}-byte limit of one write`);
    }
    if (session.state === 'running' && chars !== '') {
      const canonical = modeMatters(chars) ? session.process.terminal?.localModes()?.canonical : undefined;
      session.inputMark = wakesReader(chars, canonical) ? this.returnPolicy.beforeInput?.(session.process) : undefined;
      await this.type(session, chars, performance.now() + SEND_INPUT_WAIT_MS);
    }
  }

  /** What each session is doing now: a live tty session is watched for input-wait for up to STATE_PROBE_MS. */
  async sessionStates(): Promise<Map<number, SessionState>> {
    const states = await Promise.all(this.store.list().map(async (s) => [s.id, await this.stateOf(s)] as const));
    return new Map(states);
  }

  private async stateOf(session: ExecSession): Promise<SessionState> {
    if (session.state !== 'running') return 'exited';
    if (!session.process.tty) return 'running';
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), STATE_PROBE_MS);
    try {
      const early = await this.returnPolicy.watch(session.watchContext(abort.signal, 'poll', session.inputMark));
      return early?.state ?? 'running';
    } catch {
      return 'running';
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }

  /** Ends a session's whole process tree and forgets it; a call waiting on it answers at once with the exit. */
  async closeSession(sessionId: number): Promise<ClosedSession> {
    this.assertOpen();
    const { sessionId: id } = parseArguments(closeSessionRequest, { sessionId });
    const session = this.store.get(id);
    await this.store.close(session);
    return { sessionId: session.id, exitCode: session.exitInfo?.exitCode };
  }

  /** Ends every session (their waiting calls answer at once); afterwards every call fails with SHUT_DOWN. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= (async () => {
      await this.store.closeAll();
      await this.executors.close();
      this.leaveBudget?.dispose();
      this.unguard();
    })();
    return this.shutdownPromise;
  }

  /**
   * `await using manager = new UnifiedExecManager()`: shutdown() when the scope ends, however it ends. A manager
   * forgotten without either does not hold the process up once its sessions' programs have exited.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  /** Live sessions held. */
  get size(): number {
    return this.store.size;
  }

  /** Waits (see `waitFor`), then answers with the output since the last call and the session's state. */
  private async collect(session: ExecSession, call: Collect): Promise<ExecResponse> {
    let early: EarlyReturn | undefined;
    try {
      early = await this.waitFor(session, call);
      // Closed meanwhile (close_session, pruning, shutdown): answer with how it ended, once its tree is gone.
      if (session.state === 'closed') await session.settled();
    } finally {
      // In the same tick as the drain: what was streamed is exactly what this reply drains of the call's output.
      call.output?.dispose();
    }
    // Given up: the output and the exit stay for the next call, which the session is now free for.
    if (call.signal?.aborted) throw cancelled();
    const drained = session.drain();
    const { text, totalBytes, omittedBytes, withoutDrawing } = drained;
    const originalTokenCount = Math.ceil(totalBytes / 4);
    // The state as of the drain: a process that exits while the screen is read reports that, and what it printed
    // meanwhile, in the next reply.
    const state = session.state;
    // A large reply's steps (decoding, the drawing taken out, the screen, the truncation) each cost several ms per
    // MiB: each takes a turn of its own, so that together they do not hold up every other session and client.
    const large = text.length > LARGE_REPLY_CHARS;
    if (large) await nextTurn();
    // What a program drew is on the screen; `screen: false` asks for the raw bytes, as Codex gives.
    const drawn = call.screen === false ? undefined : withoutDrawing();
    if (large) await nextTurn();
    const screen = await screenForReply(session, call.screen, drawn?.cursorAddressed ?? false);
    if (large) await nextTurn();
    if (call.signal?.aborted) {
      // Given up while the screen was read: what was drained goes back, for the next call.
      session.giveBack(drained);
      throw cancelled();
    }
    session.lastUsedMs = this.clock();
    const base = {
      chunkId: newChunkId(),
      wallTimeSeconds: (performance.now() - call.started) / 1000,
      output: truncateForModel(drawn?.text ?? text, call.maxOutputTokens, { omittedBytes, originalTokenCount }).text,
      originalTokenCount,
      warnings: call.warnings,
      ...(screen ? { screen } : {}),
    };
    // Told on every reply from the first refusal on, even when nothing was printed: a command that retries in silence
    // would otherwise look merely slow. Once per reply: a network denial the output shows has its own note.
    const refused = session.process.networkRefusal?.();
    const refusalNote = () => refused && this.gate.denialNote({ kind: 'network', evidence: refused });
    if (state === 'running') {
      const note = refusalNote();
      if (note) base.warnings.push(note);
      return {
        ...base,
        sessionId: session.id,
        state: early?.state ?? 'running',
        ...(early?.secretPrompt ? { secretPrompt: true } : {}),
      };
    }
    // Reported once, then gone: a later write_stdin gets UNKNOWN_SESSION.
    if (state === 'exited') void this.store.close(session, { afterReply: true });
    const info = session.exitInfo;
    const exitCode = info?.exitCode ?? LOST_EXIT_CODE;
    if (info?.lost) base.warnings.push(info.lost);
    const denial = detectDenial(session.sandbox, exitCode, text);
    // A network denial the output shows gets its note from the caller (see execCommand, writeStdin).
    const note = denial?.kind === 'network' ? undefined : refusalNote();
    if (note) base.warnings.push(note);
    return {
      ...base,
      exitCode,
      state: 'exited',
      ...(info?.signal ? { signal: info.signal } : {}),
      ...(denial ? { sandboxDenial: denial } : {}),
    };
  }

  /** Starts a checked and admitted command, stores its session and waits for its first reply. */
  private async start(
    req: z.output<typeof execCommandRequest>,
    run: {
      /** What to start; without `sandbox`, outside any. */
      request: CommandRequest;
      where: NamedExecutor;
      started: number;
      onOutput: ((text: string) => void) | undefined;
      signal?: AbortSignal | undefined;
      /** Counted in the yield: see CallOptions.waitedMs. */
      waitedBefore?: number;
    },
  ): Promise<ExecResponse> {
    const { request, started, onOutput, where } = run;
    const { executor } = where;
    this.assertRoomToStart();
    try {
      await executor.prepare?.(request);
    } catch (err) {
      throw asSpawnFailed(err);
    }
    const { session, output, warnings, spawned } = await this.spawnLimit(async () => {
      this.assertOpen();
      const id = this.store.allocateId();
      let begun: StartedCommand;
      try {
        begun = await executor.start(request);
      } catch (err) {
        // Shut down while it started: the executor may have been closed under it.
        this.assertOpen();
        throw asSpawnFailed(err);
      }
      // Shut down while it started (an executor elsewhere, a sandbox being set up): shutdown did not see it, so end it here.
      if (this.shutdownPromise) {
        await begun.process.terminate();
        throw shutDown();
      }
      // Subscribed in the same tick as the start, so not one byte of output is missed; stored before any wait, so
      // it is reachable (and shutdown finds it) even if the caller goes away.
      // A wait for a login snapshot stood in for the login shell's own start-up: the yield counts from before it.
      const spawned = performance.now() - (begun.waitedMs ?? 0);
      const made = new ExecSession(id, req.command, begun.process, {
        outputMaxBytes: this.settings.outputMaxBytes,
        nowMs: this.clock(),
        sandbox: begun.sandbox,
        executor: where.name,
        terminalSize: terminalSize(req),
        screen: this.settings.screens,
        screenChoice: req.screen,
      });
      const subscription = onOutput && made.onOutput(onOutput);
      this.store.add(made);
      // A spawn blocks the event loop for a few ms: let other work run between the spawns of a burst.
      await new Promise((resolve) => setImmediate(resolve));
      return { session: made, output: subscription, warnings: [...begun.warnings], spawned };
    });
    let response: ExecResponse;
    try {
      response = await this.collect(session, {
        started,
        deadline: spawned + clampYieldTime(req.yieldTimeMs) - (run.waitedBefore ?? 0),
        maxOutputTokens: req.maxOutputTokens,
        warnings,
        trigger: 'start',
        output,
        screen: req.screen,
        signal: run.signal,
      });
    } catch (error) {
      // Given up during its first yield: the program runs on under its session (list_sessions finds it).
      if (session.state === 'running') this.makeRoom(session);
      throw error;
    }
    // As in Codex, only a process that outlives its first yield takes a place: a command that exits at once never
    // prunes a live session.
    if (session.state === 'running') {
      this.makeRoom(session);
      if (this.store.size >= this.warningThreshold) response.warnings.push(this.sessionCountWarning());
    }
    return response;
  }

  /**
   * Waits until the session leaves `running` (exit, close, pruning, shutdown), the deadline passes, or the return
   * policy says the answer is complete.
   */
  private waitFor(session: ExecSession, call: Collect): Promise<EarlyReturn | undefined> {
    if (session.state !== 'running' || call.signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      // A new AbortController (an EventTarget) costs some 8 µs of a round trip: a signal never aborted, left with no
      // listener by the policy that had it, serves the session's next wait.
      const abort = session.spareWaitAbort ?? new AbortController();
      session.spareWaitAbort = undefined;
      let over = false;
      /** The policy is still at work: its signal tells it to stop. One that has answered needs no abort (and its event). */
      let watching = false;
      const finish = (result: EarlyReturn | undefined) => {
        if (over) return;
        over = true;
        if (watching) abort.abort(WAIT_OVER);
        else if (getEventListeners(abort.signal, 'abort').length === 0) session.spareWaitAbort = abort;
        clearTimeout(timer);
        sub.dispose();
        call.signal?.removeEventListener('abort', cancel);
        resolve(result);
      };
      const cancel = () => finish(undefined);
      // At the deadline, one last look: timers run before the event loop reads its I/O, so an exit that came while
      // the loop was busy (a loaded machine) is read first instead of being answered as a running process.
      const timer = setTimeout(
        () => setImmediate(() => finish(undefined)),
        Math.max(0, call.deadline - performance.now()),
      );
      const sub = session.onActivity(() => {
        if (session.state !== 'running') finish(undefined);
      });
      call.signal?.addEventListener('abort', cancel, { once: true });
      if (session.process.tty) {
        watching = true;
        this.returnPolicy.watch(session.watchContext(abort.signal, call.trigger, call.beforeInput)).then(
          (result) => {
            watching = false;
            if (result) finish(result);
          },
          () => (watching = false),
        );
      }
    });
  }

  /** Refuses a new session while unread output is over its limit, or the shared budget is full of others' sessions. */
  private assertRoomToStart(): void {
    const buffered = this.store.bufferedBytes();
    if (buffered >= this.settings.maxTotalBufferedBytes) {
      throw limitExceeded(
        `Sessions hold ${buffered} bytes of unread output (limit ${this.settings.maxTotalBufferedBytes}); poll or close sessions before starting more`,
      );
    }
    if (!this.budget) return;
    const { maxSessions, maxBufferedBytes } = this.budget.limits;
    const shared = this.budget.bufferedBytes();
    if (shared >= maxBufferedBytes) {
      throw limitExceeded(
        `The server's sessions hold ${shared} bytes of unread output (limit ${maxBufferedBytes} across clients); poll or close sessions before starting more`,
      );
    }
    // At the shared cap a client makes room among its own sessions; with none of its own it cannot start one.
    if (this.store.size === 0 && this.budget.liveSessions >= maxSessions) {
      throw limitExceeded(
        `The server holds ${this.budget.liveSessions} live sessions across clients (limit ${maxSessions}); try again when other clients have closed some`,
      );
    }
  }

  /** Prunes this manager's own sessions (never `keep`) until it is within its cap and the shared one. */
  private makeRoom(keep: ExecSession): void {
    const over = () =>
      this.store.size > this.settings.maxSessions ||
      (this.budget !== undefined && this.budget.liveSessions > this.budget.limits.maxSessions);
    while (over() && this.store.pruneOne(keep));
  }

  private sessionCountWarning(): string {
    return `Warning: The maximum number of unified exec processes you can keep open is ${this.warningThreshold} and you currently have ${this.store.size} processes open. Reuse older processes or close them to prevent automatic pruning of old processes`;
  }

  private assertOpen(): void {
    if (this.shutdownPromise) throw shutDown();
  }
}
