import pLimit from 'p-limit';
import { truncateForModel } from '../buffer/truncate.js';
import { InputWaitPolicy } from '../input-wait/policy.js';
import { deadlinePolicy, type EarlyReturn, type ReturnPolicy, type WatchContext } from '../input-wait/return-policy.js';
import { buildEnv } from '../spawn/env.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import { findExecutable, resolveWorkdir } from '../spawn/resolve.js';
import type { Disposable, ExecProcess, Executor } from '../spawn/types.js';
import { SESSION_WARNING_THRESHOLD } from './constants.js';
import { limitExceeded, shutDown, spawnFailed, stdinClosed } from './errors.js';
import { ExecSession } from './exec-session.js';
import { killOnExit } from './exit-guard.js';
import { newChunkId, randomSessionId } from './ids.js';
import { canonicalLineWarning } from './input-lines.js';
import {
  closeSessionRequest,
  execCommandRequest,
  parseArguments,
  writeStdinRequest,
  type ExecCommandRequest,
  type WriteStdinRequest,
} from './requests.js';
import { resolveSettings, type ResolvedSettings } from './settings.js';
import type { SessionBudget } from './budget.js';
import { SessionStore } from './store.js';
import { clampPollTime, clampYieldTime } from './timing.js';
import type { ExecResponse, ManagerOptions, SessionInfo } from './types.js';

/** Exit code reported for a session whose tree was ended but whose exit status never came: as if SIGKILLed. */
const UNKNOWN_EXIT_CODE = 128 + 9;

/** What one call asks of the wait-and-answer step. */
interface Collect {
  /** performance.now() when the call came in. */
  started: number;
  waitMs: number;
  maxOutputTokens: number;
  warnings: string[];
  trigger: WatchContext['trigger'];
  beforeInput?: unknown;
}

/**
 * Runs commands for a model: exec_command starts one and waits a bounded time; a program still running is kept
 * under a session id that write_stdin types into and polls. Every call answers with what was printed meanwhile.
 */
export class UnifiedExecManager {
  private readonly settings: ResolvedSettings;
  private readonly store: SessionStore;
  private readonly spawnLimit: ReturnType<typeof pLimit>;
  private readonly executor: Executor;
  private readonly clock: () => number;
  private readonly warningThreshold: number;
  private readonly returnPolicy: ReturnPolicy;
  private readonly unguard: () => void;
  private readonly budget: SessionBudget | undefined;
  private readonly leaveBudget: Disposable | undefined;
  private shutdownPromise: Promise<void> | undefined;

  constructor(options: ManagerOptions = {}) {
    const { executor, idGenerator, clock, returnPolicy, budget, ...settings } = options ?? {};
    this.settings = resolveSettings(settings);
    this.executor = executor ?? new LocalExecutor();
    this.clock = clock ?? Date.now;
    this.store = new SessionStore({ nextId: idGenerator ?? randomSessionId });
    this.budget = budget;
    this.leaveBudget = budget?.join(this.store);
    this.warningThreshold = Math.min(SESSION_WARNING_THRESHOLD, Math.max(1, this.settings.maxSessions - 4));
    this.returnPolicy =
      returnPolicy ?? (this.settings.returnOn === 'deadline' ? deadlinePolicy : new InputWaitPolicy());
    this.spawnLimit = pLimit(this.settings.maxConcurrentSpawns);
    this.unguard = killOnExit(() => this.store.list().map((s) => s.process.pid));
  }

  /** Starts `cmd` and answers once it exits or its yield time is up; a live program gets a session id. */
  async execCommand(request: ExecCommandRequest): Promise<ExecResponse> {
    const started = performance.now();
    this.assertOpen();
    const req = parseArguments(execCommandRequest, request);
    const env = buildEnv(this.settings.env);
    const shell = req.shell ?? this.settings.defaultShell;
    if (!findExecutable(shell, env.PATH)) {
      throw spawnFailed(
        `shell \`${shell}\` was not found or is not executable; pass an installed shell such as /bin/bash`,
      );
    }
    let cwd: string;
    try {
      cwd = resolveWorkdir(req.workdir ?? this.settings.cwd, this.settings.cwd);
    } catch (err) {
      throw spawnFailed(`${(err as Error).message}; pass an existing \`workdir\``, err);
    }
    this.assertRoomToStart();
    const session = await this.spawnLimit(async () => {
      this.assertOpen();
      const id = this.store.allocateId();
      let proc: ExecProcess;
      try {
        proc = this.executor.spawn({ argv: [shell, req.login ? '-lc' : '-c', req.cmd], cwd, env, tty: req.tty });
      } catch (err) {
        throw spawnFailed((err as Error).message, err);
      }
      // Subscribed in the same tick as the spawn, so not one byte of output is missed; stored before any wait, so
      // it is reachable (and shutdown finds it) even if the caller goes away.
      const made = new ExecSession(id, req.cmd, proc, this.settings.outputMaxBytes, this.clock());
      this.store.add(made);
      // A spawn blocks the event loop for a few ms: let other work run between the spawns of a burst.
      await new Promise((resolve) => setImmediate(resolve));
      return made;
    });
    const response = await this.collect(session, {
      started,
      waitMs: clampYieldTime(req.yieldTimeMs),
      maxOutputTokens: req.maxOutputTokens,
      warnings: [],
      trigger: 'start',
    });
    // As in Codex, only a process that outlives its first yield takes a place: a command that exits at once never
    // prunes a live session.
    if (session.state === 'running') {
      this.makeRoom(session);
      if (this.store.size >= this.warningThreshold) response.warnings.push(this.sessionCountWarning());
    }
    return response;
  }

  /** Types `chars` into a tty session (empty: just poll) and answers with what came back. */
  async writeStdin(request: WriteStdinRequest): Promise<ExecResponse> {
    const started = performance.now();
    this.assertOpen();
    const req = parseArguments(writeStdinRequest, request);
    const session = this.store.get(req.sessionId);
    if (req.chars !== '' && !session.process.tty) throw stdinClosed();
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
    return session.exclusive(async () => {
      const call: Collect = {
        started,
        waitMs:
          req.chars === ''
            ? clampPollTime(req.yieldTimeMs, this.settings.maxBackgroundPollMs)
            : clampYieldTime(req.yieldTimeMs),
        maxOutputTokens: req.maxOutputTokens,
        warnings: [],
        trigger: req.chars === '' ? 'poll' : 'input',
      };
      // Exited or closed while this call queued behind another: it answers with how the session ended, and types
      // nothing.
      if (req.chars !== '' && session.state === 'running') {
        const cut = canonicalLineWarning(req.chars, session.process.terminal?.localModes()?.canonical);
        if (cut) call.warnings.push(cut);
        call.beforeInput = this.returnPolicy.beforeInput?.(session.process);
        await this.type(session, req.chars, call.started + call.waitMs);
      }
      const response = await this.collect(session, call);
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
  private async type(session: ExecSession, chars: string, deadline: number): Promise<void> {
    let sub: Disposable | undefined;
    let timer: NodeJS.Timeout | undefined;
    const ended = new Promise<void>((resolve) => {
      sub = session.onActivity(() => session.state !== 'running' && resolve());
      timer = setTimeout(resolve, Math.max(0, deadline - performance.now()));
    });
    try {
      await Promise.race([session.process.write(chars).catch(() => undefined), ended]);
    } finally {
      sub?.dispose();
      clearTimeout(timer);
    }
  }

  /** Every session still held, oldest first: models lose ids after context compaction and find them here. */
  listSessions(): SessionInfo[] {
    return this.store.list().map((s) => ({
      sessionId: s.id,
      command: s.command,
      tty: s.process.tty,
      pid: s.process.pid,
      startedAt: new Date(s.startedAtMs),
      lastUsedAt: new Date(s.lastUsedMs),
      exited: s.state !== 'running',
      ...(s.exitInfo ? { exitCode: s.exitInfo.exitCode } : {}),
      bufferedBytes: s.bufferedBytes,
    }));
  }

  /** Ends a session's whole process tree and forgets it; a call waiting on it answers at once with the exit. */
  async closeSession(sessionId: number): Promise<{ sessionId: number; exitCode: number | undefined }> {
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
      this.leaveBudget?.dispose();
      this.unguard();
    })();
    return this.shutdownPromise;
  }

  /** Live sessions held. */
  get size(): number {
    return this.store.size;
  }

  /** Waits (see `waitFor`), then answers with the output since the last call and the session's state. */
  private async collect(session: ExecSession, call: Collect): Promise<ExecResponse> {
    const early = await this.waitFor(session, call);
    // Closed meanwhile (close_session, pruning, shutdown): answer with how it ended, once its tree is gone.
    if (session.state === 'closed') await session.settled();
    const { text, totalBytes } = session.drain();
    session.lastUsedMs = this.clock();
    const base = {
      chunkId: newChunkId(),
      wallTimeSeconds: (performance.now() - call.started) / 1000,
      output: truncateForModel(text, call.maxOutputTokens).text,
      originalTokenCount: Math.ceil(totalBytes / 4),
      warnings: call.warnings,
    };
    if (session.state === 'running') {
      return {
        ...base,
        sessionId: session.id,
        state: early?.state ?? 'running',
        ...(early?.secretPrompt ? { secretPrompt: true } : {}),
      };
    }
    // Reported once, then gone: a later write_stdin gets UNKNOWN_SESSION.
    if (session.state === 'exited') void this.store.close(session, { afterReply: true });
    return { ...base, exitCode: session.exitInfo?.exitCode ?? UNKNOWN_EXIT_CODE, state: 'exited' };
  }

  /**
   * Waits until the session leaves `running` (exit, close, pruning, shutdown), the deadline passes, or the return
   * policy says the answer is complete.
   */
  private waitFor(session: ExecSession, call: Collect): Promise<EarlyReturn | undefined> {
    if (session.state !== 'running') return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const abort = new AbortController();
      const finish = (result: EarlyReturn | undefined) => {
        if (abort.signal.aborted) return;
        abort.abort();
        clearTimeout(timer);
        sub.dispose();
        resolve(result);
      };
      const timer = setTimeout(() => finish(undefined), Math.max(0, call.started + call.waitMs - performance.now()));
      const sub = session.onActivity(() => {
        if (session.state !== 'running') finish(undefined);
      });
      if (session.process.tty) {
        this.returnPolicy
          .watch({
            process: session.process,
            lastOutputAt: () => session.lastOutputAt,
            onActivity: (listener) => session.onActivity(listener),
            signal: abort.signal,
            trigger: call.trigger,
            beforeInput: call.beforeInput,
          })
          .then(
            (result) => result && finish(result),
            () => undefined,
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
