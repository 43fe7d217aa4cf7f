import type { ReturnPolicy } from '../input-wait/return-policy.js';
import { detectDenial } from '../sandbox/denial.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import type { Disposable, ExecProcess, ExitInfo } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { Listeners } from '../util/listeners.js';
import { ChunkLog } from './chunk-log.js';
import { SlabCopier } from '../buffer/slab-copier.js';
import { InputWatch } from './input-watch.js';
import {
  SANDBOX_OUTPUT_WAIT_MS,
  MAX_CHUNK_BYTES,
  MAX_PENDING_INPUT_BYTES,
  REMEMBERED_WRITE_IDS,
  RETAINED_OUTPUT_BYTES,
  RETAINED_OUTPUT_CHUNKS,
} from './limits.js';
import {
  NOTIFICATIONS,
  type OutputStream,
  type ProcessClosedNotification,
  type ProcessExitedNotification,
  type ProcessInputWaitNotification,
  type OutputFrame,
  type ProcessReadResult,
  type WriteStatus,
} from './protocol.js';
import { internalError, invalidParams } from './rpc-error.js';

/** A notification about one process but its output, for the session to pass to its connection. */
type WireEvent =
  | { method: typeof NOTIFICATIONS.processExited; params: ProcessExitedNotification }
  | { method: typeof NOTIFICATIONS.processClosed; params: ProcessClosedNotification }
  | { method: typeof NOTIFICATIONS.processInputWait; params: ProcessInputWaitNotification };

export interface WireProcessOptions {
  id: string;
  process: ExecProcess;
  /** Pipes only: stdin was kept open for writes. */
  pipeStdin: boolean;
  /** The sandbox it runs in, for telling a denial from its output. */
  sandbox?: SandboxPolicy;
  /** Tty only: detects input-wait for the `process/inputWait` extension. */
  inputWaitPolicy?: ReturnPolicy;
  retainedBytes?: number;
  emit(event: WireEvent): void;
  /** The chunks of one read of output, in seq order: the connection sends each as `process/output`. */
  output(chunks: readonly OutputFrame[]): void;
  /** Called once, when the process reaches `closed`. */
  closed(): void;
}

/** What a write did: its status, and what to do once its response has gone out. */
export interface WriteOutcome {
  status: WriteStatus;
  afterReply?: () => void;
}

/**
 * One process as the wire sees it: `running → exited → closed`, one `seq` counter shared by output chunks, the exit
 * and the close, the retained output, the writeIds seen, and the long polls waiting on it. `closed` comes after the
 * exit and the end of output (pipes: EOF of both; a pty: at the exit, later output is dropped as Codex does).
 */
export class WireProcess {
  readonly id: string;
  readonly tty: boolean;
  state: 'running' | 'exited' | 'closed' = 'running';
  private nextSeq = 1;
  private readonly log: ChunkLog;
  /** Where the log's chunks are copied: slabs, freed as the log lets their chunks go. */
  private readonly copier = new SlabCopier();
  private exit: { exitCode: number; signal?: string; sandboxDenied: boolean } | undefined;
  private terminateRequested = false;
  private outputEnded = false;
  private readonly writeIds = new Set<string>();
  /** Non-empty writes so far. */
  private inputSeq = 0;
  private lastOutputAt = 0;
  private readonly activity = new Listeners<void>();
  private readonly waiters = new Set<() => void>();
  private readonly subscriptions: Disposable[] = [];
  private readonly watch: InputWatch | undefined;
  private disposed = false;
  /** Resolves at the end of output (pipes: EOF of both). */
  private readonly outputDone: Promise<void>;

  constructor(private readonly options: WireProcessOptions) {
    const proc = options.process;
    this.id = options.id;
    this.tty = proc.tty;
    this.log = new ChunkLog(options.retainedBytes ?? RETAINED_OUTPUT_BYTES, RETAINED_OUTPUT_CHUNKS);
    // Each read is copied once, into the copier's slabs (onDataView: the read is ours only during the call).
    this.subscriptions.push(
      (proc.onDataView ?? proc.onData).call(proc, (chunk, stream) => this.onOutput(proc.tty ? 'pty' : stream, chunk)),
    );
    if (proc.tty) {
      this.outputEnded = true; // a terminal's end of output is not waited for: closed follows the exit
      this.outputDone = Promise.resolve();
    } else {
      this.outputDone = proc.outputDone;
      void proc.outputDone.then(() => this.onOutputEnd());
    }
    this.subscriptions.push(proc.onExit((info) => void this.onExit(info)));
    if (proc.tty && options.inputWaitPolicy) {
      this.watch = new InputWatch(proc, options.inputWaitPolicy, {
        lastOutputAt: () => this.lastOutputAt,
        onActivity: (listener) => this.activity.add(listener),
        report: (secretPrompt) =>
          this.options.emit({
            method: NOTIFICATIONS.processInputWait,
            params: { processId: this.id, seq: this.nextSeq, inputSeq: this.inputSeq, secretPrompt },
          }),
      });
    }
  }

  /** The leader's pid on this machine. */
  get pid(): number | undefined {
    return this.options.process.pid;
  }

  /** Starts (or stops) input-wait detection: on while a connection that asked for it is attached. */
  watchInput(enabled: boolean, trigger: 'start' | 'poll' = 'poll'): void {
    if (enabled) this.watch?.enable(trigger);
    else this.watch?.disable();
  }

  /**
   * Retained chunks after `afterSeq`; with `waitMs`, first waits (at most that long) for a newer chunk, the exit or
   * the close. An exited or closed process answers at once.
   */
  async read(params: { afterSeq?: number; maxBytes?: number; waitMs?: number }): Promise<ProcessReadResult> {
    const afterSeq = params.afterSeq ?? 0;
    const ready = () => this.disposed || this.state !== 'running' || this.log.hasAfter(afterSeq);
    if (!ready() && (params.waitMs ?? 0) > 0) await this.waitFor(ready, params.waitMs!);
    const { chunks, cut } = this.log.after(afterSeq, params.maxBytes);
    const last = chunks[chunks.length - 1];
    const report = this.watch?.latestReport;
    return {
      chunks: chunks.map((c) => ({ seq: c.seq, stream: c.stream, chunk: c.bytes.toString('base64') })),
      nextSeq: cut && last !== undefined ? last.seq + 1 : this.nextSeq,
      exited: this.state !== 'running',
      exitCode: this.exit?.exitCode ?? null,
      closed: this.state === 'closed',
      failure: null,
      sandboxDenied: this.exit?.sandboxDenied ?? false,
      ...(this.exit?.signal !== undefined ? { signal: this.exit.signal } : {}),
      waitingForInput: report !== undefined,
      ...(report?.secretPrompt ? { secretPrompt: true } : {}),
    };
  }

  /**
   * Writes `bytes` unless `writeId` was used on this process before. Returns at once: the bytes are queued in order
   * and reach the program as it reads. A process that has exited takes the write and drops the bytes, except right
   * after `terminate` (-32603), as on the real server.
   */
  write(bytes: Buffer, writeId: string): WriteOutcome {
    if (!this.tty && !this.options.pipeStdin) return { status: 'stdinClosed' };
    if (this.writeIds.has(writeId)) return { status: 'accepted' };
    this.rememberWriteId(writeId);
    if (this.terminateRequested) throw internalError('failed to write to process stdin');
    if (this.state !== 'running' || bytes.length === 0) return { status: 'accepted' };
    const proc = this.options.process;
    if ((proc.pendingInputBytes ?? 0) + bytes.length > MAX_PENDING_INPUT_BYTES) {
      throw internalError(
        `failed to write to process stdin: ${proc.pendingInputBytes} bytes written before are not read yet`,
      );
    }
    const mark = this.watch?.beforeWrite();
    this.inputSeq++;
    // A program that exits before reading everything is not the writer's error: the bytes are dropped.
    proc.write(bytes).catch(() => undefined);
    return { status: 'accepted', afterReply: () => this.watch?.afterWrite(mark) };
  }

  /** SIGINT to the process group, if it still runs. */
  interrupt(): void {
    const pid = this.pid;
    if (this.state !== 'running' || pid === undefined) return;
    try {
      process.kill(-pid, 'SIGINT');
    } catch {
      // already gone
    }
  }

  /** Whether it was running; if so, ends its whole tree (SIGTERM, a grace period, SIGKILL, escapees by tag). */
  /**
   * Ends the tree; answers whether the process still ran. An exited one whose background job still holds its pipes
   * (not closed yet) has that job ended too: nothing else would end it before the retention runs out.
   */
  terminate(): boolean {
    if (this.state === 'closed' || this.terminateRequested) return false;
    this.terminateRequested = true;
    void this.options.process.terminate();
    return this.state === 'running';
  }

  resize(cols: number, rows: number): void {
    if (!this.tty) throw invalidParams(`process ${this.id} has no terminal`);
    if (this.state === 'running') this.options.process.resize(cols, rows);
  }

  /** Forgets the process: ends whatever of its tree is left, releases its fds, answers its long polls. */
  dispose(): Promise<void> {
    this.disposed = true;
    this.watch?.stop();
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.wake();
    return this.options.process.terminate();
  }

  private rememberWriteId(writeId: string): void {
    this.writeIds.add(writeId);
    if (this.writeIds.size > REMEMBERED_WRITE_IDS) this.writeIds.delete(this.writeIds.values().next().value!);
  }

  private onOutput(stream: OutputStream, data: Buffer): void {
    // After the close nothing more is told (a pty's background child printing late): Codex drops it too.
    if (this.state === 'closed' || this.disposed) return;
    // `data` may be a view of a buffer the next read reuses: what is kept and sent is a copy. The log keeps the
    // chunk as it is sent (a read costs one object per chunk, not two).
    const chunks: OutputFrame[] = [];
    for (let offset = 0; offset < data.length; offset += MAX_CHUNK_BYTES) {
      const piece = data.length <= MAX_CHUNK_BYTES ? data : data.subarray(offset, offset + MAX_CHUNK_BYTES);
      const chunk: OutputFrame = { processId: this.id, seq: this.nextSeq++, stream, bytes: this.copier.copy(piece) };
      this.log.push(chunk);
      chunks.push(chunk);
    }
    this.options.output(chunks);
    this.lastOutputAt = performance.now();
    this.watch?.output();
    this.activity.emit();
    this.wake();
  }

  private async onExit(info: ExitInfo): Promise<void> {
    if (this.state !== 'running' || this.disposed) return;
    this.watch?.stop();
    // Whether the sandbox refused something is read from the output: under load the pipes can still hold the
    // error line when the exit is seen, so a sandboxed process's exit waits (briefly) for their end.
    if (this.options.sandbox !== undefined && info.exitCode !== 0) {
      await waitAtMost(this.outputDone, SANDBOX_OUTPUT_WAIT_MS);
      if (this.state !== 'running' || this.disposed) return;
    }
    // Codex reports a pty killed by a signal as exit code 1 (pipes: 128 + n); the signal itself is our extension.
    const exitCode = this.tty && info.signal !== undefined ? 1 : info.exitCode;
    const sandboxDenied = detectDenial(this.options.sandbox, info.exitCode, this.log.text()) !== undefined;
    this.exit = { exitCode, sandboxDenied, ...(info.signal !== undefined ? { signal: info.signal } : {}) };
    this.state = 'exited';
    this.options.emit({
      method: NOTIFICATIONS.processExited,
      params: { processId: this.id, seq: this.nextSeq++, ...this.exit },
    });
    this.activity.emit();
    this.wake();
    if (this.tty || this.outputEnded) this.close();
  }

  private onOutputEnd(): void {
    this.outputEnded = true;
    if (this.state === 'exited') this.close();
  }

  private close(): void {
    if (this.state === 'closed' || this.disposed) return;
    this.state = 'closed';
    this.options.emit({ method: NOTIFICATIONS.processClosed, params: { processId: this.id, seq: this.nextSeq++ } });
    this.wake();
    this.options.closed();
  }

  private waitFor(ready: () => boolean, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (ready()) done();
      };
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(check);
    });
  }

  private wake(): void {
    if (this.waiters.size === 0) return; // each read wakes: most have no long poll waiting
    for (const check of [...this.waiters]) check();
  }
}
