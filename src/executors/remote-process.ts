import { constants } from 'node:os';
import {
  METHODS,
  NOTIFICATIONS,
  type ProcessExitedNotification,
  type OutputFrame,
  type ProcessInputWaitNotification,
  type ProcessOutputNotification,
  type ProcessReadResult,
  type ProcessWriteResult,
} from '../exec-server/protocol.js';
import type {
  ProcessReadParams,
  ProcessResizeParams,
  ProcessTerminateParams,
  ProcessWriteParams,
} from '../exec-server/schemas.js';
import { LOST_EXIT_CODE, ProcessCore } from '../spawn/process-core.js';
import type { ExecProcess, ExitInfo, ReportedInputWait } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { Listeners } from '../util/listeners.js';
import type { ExecServerClient, ProcessSink } from './exec-server-client.js';

/**
 * After `process/exited` on pipes, how long to wait for `process/closed` before telling the exit: the server's readers
 * may still be sending the last output, or a background job holds the pipes (then for ever).
 */
const TRAILING_OUTPUT_MS = 1_000;
/** How long terminate waits for the server to report the end before it lets the process go. */
const TERMINATE_WAIT_MS = 3_000;
/** One catch-up read asks for at most this much; it reads again until it has everything. */
const CATCH_UP_READ_BYTES = 1024 * 1024;

interface Report {
  seq: number;
  inputSeq: number;
  secretPrompt: boolean;
}

/**
 * One program run by an exec-server, as an ExecProcess: output from `process/output` notifications (and from reads
 * after a reconnection), in seq order, each chunk once. The exit is told once the server reports it closed (exited,
 * and every output stream at its end), so every byte printed before it is in; on pipes a background job may hold the
 * streams open, so an exit not closed within TRAILING_OUTPUT_MS is told anyway, and what comes later still arrives.
 * Output that comes before anyone listens is kept for the first listener.
 */
export class RemoteProcess extends ProcessCore implements ExecProcess, ProcessSink {
  readonly pid = undefined;
  /** The leader's pid on the server's machine, when the server says (ours does). */
  remotePid: number | undefined;
  readonly reportedInputWait: ReportedInputWait | undefined;
  private readonly reports = new Listeners<void>();
  /** The highest seq seen of any event: where a catch-up read starts. */
  private lastSeq = 0;
  private highestOutputSeq = 0;
  private exited: ProcessExitedNotification | undefined;
  /** The server reported it closed (or it was given up): no more output, no more notifications. */
  private closed = false;
  private exitTimer: NodeJS.Timeout | undefined;
  private writes = 0;
  private writesWithBytes = 0;
  private latestReport: Report | undefined;
  private catchingUp: Promise<void> | undefined;
  /**
   * Notifications that came after a drop, kept until the catch-up read has what the server said while nobody
   * listened: a live chunk told first would move lastSeq past the gap, and the read's older chunks would be dropped.
   */
  private held: (() => void)[] | undefined;
  /** A reconnection whose gap has not been read yet. */
  private behind = false;

  constructor(
    private readonly connection: ExecServerClient,
    readonly processId: string,
    readonly tty: boolean,
    stdinOpen: boolean,
  ) {
    super(stdinOpen);
    const info = connection.serverInfo?.unifiedExec;
    this.reportedInputWait = tty && info?.inputWait ? this.inputWaitView() : undefined;
  }

  notify(method: string, params: Record<string, unknown>): void {
    if (this.held) return void this.held.push(() => this.apply(method, params));
    this.apply(method, params);
  }

  output(frame: OutputFrame): void {
    if (this.held) return void this.held.push(() => this.takeOutput(frame.seq, frame.bytes, frame.stream));
    this.takeOutput(frame.seq, frame.bytes, frame.stream);
  }

  disconnected(): void {
    this.held ??= [];
  }

  resumed(): void {
    this.behind = true;
    this.catchingUp ??= this.catchUp().finally(() => (this.catchingUp = undefined));
  }

  private apply(method: string, params: Record<string, unknown>): void {
    switch (method) {
      case NOTIFICATIONS.processOutput: {
        const { seq, chunk, stream } = params as unknown as ProcessOutputNotification;
        return this.takeOutput(seq, Buffer.from(chunk, 'base64'), stream);
      }
      case NOTIFICATIONS.processExited:
        this.exited = params as unknown as ProcessExitedNotification;
        this.lastSeq = Math.max(this.lastSeq, this.exited.seq);
        if (!this.tty) this.tellExitLater();
        return;
      case NOTIFICATIONS.processClosed:
        this.lastSeq = Math.max(this.lastSeq, Number(params.seq) || 0);
        this.finish(this.exitFromServer());
        return this.release();
      case NOTIFICATIONS.processInputWait: {
        const { seq, inputSeq, secretPrompt } = params as unknown as ProcessInputWaitNotification;
        this.latestReport = { seq, inputSeq, secretPrompt };
        return this.reports.emit();
      }
    }
  }

  lost(reason: string): void {
    this.finish({ exitCode: LOST_EXIT_CODE, lost: reason });
    this.release();
  }

  protected async send(bytes: Uint8Array): Promise<void> {
    this.writesWithBytes++;
    const result = await this.connection.request<ProcessWriteResult>(METHODS.processWrite, {
      processId: this.processId,
      chunk: Buffer.from(bytes).toString('base64'),
      writeId: String(++this.writes),
    } satisfies ProcessWriteParams);
    if (result.status === 'accepted') return;
    throw new Error(
      result.status === 'stdinClosed'
        ? 'stdin is closed for this session'
        : `the exec-server did not take the input (${result.status})`,
    );
  }

  resize(cols: number, rows: number): void {
    if (!this.tty || !this.connection.serverInfo?.unifiedExec?.resize || this.exitInfo) return;
    const params = { processId: this.processId, cols, rows } satisfies ProcessResizeParams;
    this.connection.request(METHODS.processResize, params).catch(() => undefined);
  }

  /** Asks the server to end the process tree (it has no forced kill) and waits (a while) for it to report the end. */
  protected async end(): Promise<void> {
    if (this.closed) return;
    // An exited pipes process may still have a background job holding its pipes: the server ends the whole tree.
    const asked = this.connection
      .request(METHODS.processTerminate, { processId: this.processId } satisfies ProcessTerminateParams)
      .catch(() => undefined);
    await waitAtMost(Promise.all([asked, this.outputDone]), TERMINATE_WAIT_MS);
    // The server did not say it ended (gone, or slow): stop waiting for it here.
    if (!this.closed) {
      this.finish({ exitCode: LOST_EXIT_CODE, signal: 'SIGKILL' });
      this.release();
    }
  }

  /** Tells the exit TRAILING_OUTPUT_MS from now unless the server has reported the process closed by then. */
  private tellExitLater(): void {
    if (this.exitTimer || this.exitInfo) return;
    this.exitTimer = setTimeout(() => this.finish(this.exitFromServer()), TRAILING_OUTPUT_MS);
    this.exitTimer.unref();
  }

  /** No more from the server for this process: unregistered, output at its end. */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.exitTimer);
    this.connection.unregister(this.processId);
    this.endOutput();
    this.reports.emit();
  }

  private takeOutput(seq: number, bytes: Buffer, stream?: string): void {
    if (seq <= this.highestOutputSeq || this.closed) return; // already had it (a read after a reconnection)
    this.highestOutputSeq = seq;
    this.lastSeq = Math.max(this.lastSeq, seq);
    this.emitData(bytes, stream === 'stderr' ? 'stderr' : 'stdout');
  }

  /** After a reconnection: reads what was missed (again after a drop meanwhile), then tells what was held. */
  private async catchUp(): Promise<void> {
    while (this.behind && !this.closed) {
      this.behind = false;
      await this.readMissed();
    }
    const held = this.held ?? [];
    this.held = undefined;
    for (const told of held) told();
  }

  /** Everything the server kept after the last seq seen, and how the process stands. */
  private async readMissed(): Promise<void> {
    for (;;) {
      let result: ProcessReadResult;
      try {
        result = await this.connection.request<ProcessReadResult>(METHODS.processRead, {
          processId: this.processId,
          afterSeq: this.lastSeq,
          maxBytes: CATCH_UP_READ_BYTES,
          waitMs: 0,
        } satisfies ProcessReadParams);
      } catch (err) {
        // Gone from the server (retention ran out): what it printed meanwhile cannot be had.
        return this.finish({
          exitCode: LOST_EXIT_CODE,
          lost: `The exec-server no longer knows this process: ${(err as Error).message}`,
        });
      }
      for (const chunk of result.chunks) this.takeOutput(chunk.seq, Buffer.from(chunk.chunk, 'base64'), chunk.stream);
      if (result.chunks.length > 0) {
        this.lastSeq = Math.max(this.lastSeq, result.nextSeq - 1);
        continue;
      }
      if (result.waitingForInput) {
        this.latestReport = {
          seq: result.nextSeq,
          inputSeq: this.writesWithBytes,
          secretPrompt: !!result.secretPrompt,
        };
        this.reports.emit();
      }
      if (result.exitCode !== null) {
        this.exited ??= {
          processId: this.processId,
          seq: result.nextSeq,
          exitCode: result.exitCode,
          sandboxDenied: result.sandboxDenied,
          ...(result.signal ? { signal: result.signal } : {}),
        };
        if (result.closed) {
          this.finish(this.exitFromServer());
          this.release();
        } else if (!this.tty) this.tellExitLater();
      }
      return;
    }
  }

  private exitFromServer(): ExitInfo {
    const exited = this.exited;
    if (!exited) return { exitCode: LOST_EXIT_CODE };
    const signum = exited.signal ? constants.signals[exited.signal as NodeJS.Signals] : undefined;
    // Codex's wire says 1 for a terminal killed by a signal; ours names the signal, and the manager says 128 + n.
    if (signum !== undefined) return { exitCode: 128 + signum, signal: exited.signal! };
    return { exitCode: exited.exitCode };
  }

  /**
   * Output kept for the first listener stays kept: a short command can be over (output, exit and close all notified)
   * before `process/start` is even answered, and its listener comes after that.
   */
  protected override onFinish(): void {
    this.reports.emit();
  }

  /** Input-wait as the server reports it: see ReportedInputWait. */
  private inputWaitView(): ReportedInputWait {
    /** A report that describes the program now: after the latest write, and no output since. */
    const current = (report: Report | undefined, mark: unknown): report is Report =>
      report !== undefined &&
      report.inputSeq === this.writesWithBytes &&
      (typeof mark !== 'number' || report.inputSeq > mark) &&
      report.seq > this.highestOutputSeq;
    return {
      mark: () => this.writesWithBytes,
      watch: ({ signal, trigger, mark }) =>
        new Promise((resolve) => {
          const relevantMark = trigger === 'input' ? mark : undefined;
          const check = () => {
            if (signal.aborted || this.exitInfo) return done(undefined);
            const report = this.latestReport;
            if (current(report, relevantMark)) done(report.secretPrompt ? { secretPrompt: true } : {});
          };
          const subscription = this.reports.add(check);
          const aborted = () => done(undefined);
          const done = (result: { secretPrompt?: boolean } | undefined) => {
            subscription.dispose();
            signal.removeEventListener('abort', aborted);
            resolve(result);
          };
          signal.addEventListener('abort', aborted, { once: true });
          check();
        }),
    };
  }
}
