import pLimit from 'p-limit';
import { OUTPUT_MAX_BYTES } from '../buffer/head-tail-buffer.js';
import { truncateForModel } from '../buffer/truncate.js';
import { buildEnv } from '../process/env.js';
import { LocalExecutor } from '../process/local-executor.js';
import { findExecutable, resolveWorkdir } from '../process/resolve.js';
import type { ExecProcess, Executor } from '../process/types.js';
import {
  DEFAULT_MAX_BACKGROUND_POLL_MS,
  DEFAULT_MAX_CONCURRENT_SPAWNS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_TOTAL_BUFFERED_BYTES,
  DEFAULT_MAX_WRITE_BYTES,
  PRUNE_PROTECTED_RECENT,
  SESSION_WARNING_THRESHOLD,
} from './constants.js';
import { limitExceeded, shutDown, spawnFailed, stdinClosed, unknownSession, UnifiedExecError } from './errors.js';
import { canonicalLineWarning } from './input-lines.js';
import { newChunkId, randomSessionId } from './ids.js';
import { pickSessionToPrune } from './prune.js';
import { deadlinePolicy, type EarlyReturn, type ReturnPolicy, type WatchContext } from './return-policy.js';
import { Session } from './session.js';
import { clampPollTime, clampYieldTime } from './timing.js';
import type { ExecCommandRequest, ExecResponse, ManagerOptions, SessionInfo, WriteStdinRequest } from './types.js';
import { normalizeExec, normalizeWrite, parseSessionId } from './validate.js';
import { killOnExit } from './exit-guard.js';
import { InputWaitPolicy } from './input-wait-policy.js';

/** How many process trees may be ended at once (each polls /proc during its grace period). */
const TERMINATE_CONCURRENCY = 8;

/**
 * Runs commands for a model: exec_command starts one and waits a bounded time; a program still running is kept
 * under a session id that write_stdin types into and polls. Every call answers with what was printed meanwhile.
 */
export class UnifiedExecManager {
  private readonly sessions = new Map<number, Session>();
  private readonly terminations = new Set<Promise<void>>();
  private readonly terminateLimit = pLimit(TERMINATE_CONCURRENCY);
  private readonly spawnLimit: ReturnType<typeof pLimit>;
  private readonly maxTotalBufferedBytes: number;
  private readonly maxWriteBytes: number;
  private readonly executor: Executor;
  private readonly nextId: () => number;
  private readonly clock: () => number;
  private readonly maxSessions: number;
  private readonly warningThreshold: number;
  private readonly maxBackgroundPollMs: number;
  private readonly outputMaxBytes: number;
  private readonly cwd: string;
  private readonly returnPolicy: ReturnPolicy;
  private readonly unguard: () => void;
  private shutdownPromise: Promise<void> | undefined;

  constructor(private readonly options: ManagerOptions = {}) {
    this.executor = options.executor ?? new LocalExecutor();
    this.nextId = options.idGenerator ?? randomSessionId;
    this.clock = options.clock ?? Date.now;
    this.maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
    this.warningThreshold = Math.min(SESSION_WARNING_THRESHOLD, Math.max(1, this.maxSessions - 4));
    this.maxBackgroundPollMs = options.maxBackgroundPollMs ?? DEFAULT_MAX_BACKGROUND_POLL_MS;
    this.outputMaxBytes = options.outputMaxBytes ?? OUTPUT_MAX_BYTES;
    this.cwd = options.cwd ?? process.cwd();
    this.returnPolicy =
      options.returnPolicy ?? (options.returnOn === 'deadline' ? deadlinePolicy : new InputWaitPolicy());
    this.spawnLimit = pLimit(Math.max(1, options.maxConcurrentSpawns ?? DEFAULT_MAX_CONCURRENT_SPAWNS));
    this.maxTotalBufferedBytes = options.maxTotalBufferedBytes ?? DEFAULT_MAX_TOTAL_BUFFERED_BYTES;
    this.maxWriteBytes = options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES;
    this.unguard = killOnExit(() => [...this.sessions.values()].map((s) => s.process.pid));
  }

  /** Starts `cmd` and answers once it exits or its yield time is up; a live program gets a session id. */
  async execCommand(request: ExecCommandRequest): Promise<ExecResponse> {
    const started = performance.now();
    this.assertOpen();
    const req = normalizeExec(request);
    const env = buildEnv(this.options.env);
    const shell = req.shell ?? this.options.defaultShell ?? process.env.SHELL ?? '/bin/bash';
    if (!findExecutable(shell, env.PATH)) {
      throw spawnFailed(
        `shell \`${shell}\` was not found or is not executable; pass an installed shell such as /bin/bash`,
      );
    }
    let cwd: string;
    try {
      cwd = resolveWorkdir(req.workdir ?? this.cwd, this.cwd);
    } catch (err) {
      throw spawnFailed(`${(err as Error).message}; pass an existing \`workdir\``, err);
    }
    const buffered = this.totalBufferedBytes();
    if (buffered >= this.maxTotalBufferedBytes) {
      throw limitExceeded(
        `Sessions hold ${buffered} bytes of unread output (limit ${this.maxTotalBufferedBytes}); poll or close sessions before starting more`,
      );
    }
    const session = await this.spawnLimit(async () => {
      this.assertOpen();
      // Before the spawn: running out of ids must not leave a started process behind.
      const id = this.allocateId();
      let proc: ExecProcess;
      try {
        proc = this.executor.spawn({ argv: [shell, req.login ? '-lc' : '-c', req.cmd], cwd, env, tty: req.tty });
      } catch (err) {
        throw spawnFailed((err as Error).message, err);
      }
      // Subscribed in the same tick as the spawn, so not one byte of output is missed; stored before any wait, so
      // it is reachable (and shutdown finds it) even if the caller goes away.
      const made = new Session(id, req.cmd, proc, this.outputMaxBytes, this.clock());
      this.sessions.set(made.id, made);
      // A spawn blocks the event loop for a few ms: let other work run between the spawns of a burst.
      await new Promise((resolve) => setImmediate(resolve));
      return made;
    });
    this.assertOpen(); // shut down meanwhile: shutdown() has ended it with the rest
    const warnings = this.enforceCap();
    return this.respond(session, started, clampYieldTime(req.yieldTimeMs), req.maxOutputTokens, warnings, 'start');
  }

  /** Types `chars` into a tty session (empty: just poll) and answers with what came back. */
  async writeStdin(request: WriteStdinRequest): Promise<ExecResponse> {
    const started = performance.now();
    this.assertOpen();
    const req = normalizeWrite(request);
    const session = this.lookup(req.sessionId);
    if (req.chars !== '' && !session.process.tty) throw stdinClosed();
    const bytes = Buffer.byteLength(req.chars, 'utf8');
    if (bytes > this.maxWriteBytes) {
      throw limitExceeded(
        `\`chars\` is ${bytes} bytes, over the ${this.maxWriteBytes}-byte limit of one write; write it in parts or pass a file`,
      );
    }
    return session.exclusive(async () => {
      // It may have been closed or pruned while this call queued behind another.
      this.lookup(req.sessionId);
      let beforeInput: unknown;
      const warnings: string[] = [];
      if (req.chars !== '') {
        const cut = canonicalLineWarning(req.chars, session.process.terminal?.localModes()?.canonical);
        if (cut) warnings.push(cut);
        beforeInput = this.returnPolicy.beforeInput?.(session.process);
        // A write after exit goes nowhere; the response then reports the exit instead.
        await session.process.write(req.chars).catch(() => undefined);
      }
      const waitMs =
        req.chars === '' ? clampPollTime(req.yieldTimeMs, this.maxBackgroundPollMs) : clampYieldTime(req.yieldTimeMs);
      const trigger = req.chars === '' ? 'poll' : 'input';
      return this.respond(session, started, waitMs, req.maxOutputTokens, warnings, trigger, beforeInput);
    });
  }

  /** Every session still held, oldest first: models lose ids after context compaction and find them here. */
  listSessions(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => ({
      sessionId: s.id,
      command: s.command,
      tty: s.process.tty,
      pid: s.process.pid,
      startedAt: new Date(s.startedAtMs),
      lastUsedAt: new Date(s.lastUsedMs),
      exited: s.exited,
      ...(s.exitInfo ? { exitCode: s.exitInfo.exitCode } : {}),
      bufferedBytes: s.bufferedBytes,
    }));
  }

  /** Ends a session's whole process tree and forgets it. */
  async closeSession(sessionId: number): Promise<{ sessionId: number; exitCode: number | undefined }> {
    this.assertOpen();
    const session = this.lookup(parseSessionId(sessionId));
    await this.remove(session);
    return { sessionId: session.id, exitCode: session.process.exitInfo?.exitCode };
  }

  /** Ends every session; afterwards every call fails with SHUT_DOWN. Safe to call more than once. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= (async () => {
      await Promise.all([...this.sessions.values()].map((s) => this.remove(s)));
      await Promise.all([...this.terminations]);
      this.unguard();
    })();
    return this.shutdownPromise;
  }

  private totalBufferedBytes(): number {
    let total = 0;
    for (const session of this.sessions.values()) total += session.bufferedBytes;
    return total;
  }

  get size(): number {
    return this.sessions.size;
  }

  private async respond(
    session: Session,
    started: number,
    waitMs: number,
    maxOutputTokens: number,
    warnings: string[],
    trigger: WatchContext['trigger'],
    beforeInput?: unknown,
  ): Promise<ExecResponse> {
    const early = await this.waitFor(session, started + waitMs, trigger, beforeInput);
    const { text, totalBytes } = session.drain();
    session.lastUsedMs = this.clock();
    const base = {
      chunkId: newChunkId(),
      wallTimeSeconds: (performance.now() - started) / 1000,
      output: truncateForModel(text, maxOutputTokens).text,
      originalTokenCount: Math.ceil(totalBytes / 4),
      warnings,
    };
    if (session.exitInfo) {
      // Reported once, then gone: a later write_stdin gets UNKNOWN_SESSION.
      void this.remove(session, { afterReply: true });
      return { ...base, exitCode: session.exitInfo.exitCode, state: 'exited' };
    }
    return {
      ...base,
      sessionId: session.id,
      state: early?.state ?? 'running',
      ...(early?.secretPrompt ? { secretPrompt: true } : {}),
    };
  }

  /** Waits until the process exits, the deadline passes, or the return policy says the answer is complete. */
  private waitFor(
    session: Session,
    deadline: number,
    trigger: WatchContext['trigger'],
    beforeInput: unknown,
  ): Promise<EarlyReturn | undefined> {
    if (session.exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const abort = new AbortController();
      const finish = (result: EarlyReturn | undefined) => {
        if (abort.signal.aborted) return;
        abort.abort();
        clearTimeout(timer);
        sub.dispose();
        resolve(result);
      };
      const timer = setTimeout(() => finish(undefined), Math.max(0, deadline - performance.now()));
      const sub = session.onChange(() => {
        if (session.exited) finish(undefined);
      });
      if (session.process.tty) {
        this.returnPolicy
          .watch({
            process: session.process,
            lastOutputAt: () => session.lastOutputAt,
            onActivity: (listener) => session.onChange(listener),
            signal: abort.signal,
            trigger,
            beforeInput,
          })
          .then(
            (result) => result && finish(result),
            () => undefined,
          );
      }
    });
  }

  /** After storing: prune over the cap, warn near it. */
  private enforceCap(): string[] {
    while (this.sessions.size > this.maxSessions) {
      const meta = [...this.sessions.values()].map((s) => ({ id: s.id, lastUsedMs: s.lastUsedMs, exited: s.exited }));
      // A cap below 9 protects fewer than the usual 8, so there is always someone to prune.
      const protectedRecent = Math.min(PRUNE_PROTECTED_RECENT, this.maxSessions - 1);
      const victim = this.sessions.get(pickSessionToPrune(meta, protectedRecent) ?? -1);
      if (!victim) break;
      void this.remove(victim);
    }
    const open = this.sessions.size;
    if (open < this.warningThreshold) return [];
    return [
      `Warning: The maximum number of unified exec processes you can keep open is ${this.warningThreshold} and you currently have ${open} processes open. Reuse older processes or close them to prevent automatic pruning of old processes`,
    ];
  }

  /**
   * Forgets the session and ends its process tree. `afterReply` defers the ending (a synchronous /proc scan) by one
   * event-loop turn, so the reply that reported the exit goes out first.
   */
  private remove(session: Session, { afterReply = false } = {}): Promise<void> {
    this.sessions.delete(session.id);
    session.detach();
    const terminate = () => session.process.terminate();
    const done = this.terminateLimit(
      afterReply ? () => new Promise<void>((resolve) => setImmediate(() => resolve(terminate()))) : terminate,
    );
    this.terminations.add(done);
    void done.finally(() => this.terminations.delete(done));
    return done;
  }

  private lookup(sessionId: number): Session {
    const session = this.sessions.get(sessionId);
    if (!session) throw unknownSession(sessionId);
    return session;
  }

  private allocateId(): number {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const id = this.nextId();
      if (!this.sessions.has(id)) return id;
    }
    throw new UnifiedExecError('SPAWN_FAILED', 'Failed to create unified exec process: no free session id');
  }

  private assertOpen(): void {
    if (this.shutdownPromise) throw shutDown();
  }
}
