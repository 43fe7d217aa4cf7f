import { Listeners } from '../util/listeners.js';
import type { Disposable, ExecProcess, ExitInfo, OutputStream } from './types.js';

/** Reported when a program's own exit status is out of reach (its executor went away, the wait ran out): as if SIGKILLed. */
export const LOST_EXIT_CODE = 128 + 9;
/** A terminal's size when none is asked for. */
export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;

interface Chunk {
  bytes: Buffer;
  stream: OutputStream;
}

/**
 * What every ExecProcess shares, wherever it runs: output listeners, with output that comes before the first
 * listener kept for it (an executor that answers asynchronously may have output before anyone listens); the exit,
 * told once; the end of output; a write guard; and a terminate that runs once however often it is called.
 */
export abstract class ProcessCore implements Pick<
  ExecProcess,
  'onData' | 'onDataView' | 'onExit' | 'write' | 'terminate'
> {
  exitInfo: ExitInfo | undefined;
  readonly outputDone: Promise<void>;
  private readonly dataListeners = new Listeners<Buffer, OutputStream>();
  /** Listeners that take a chunk only for the call (see onDataView). */
  private readonly viewListeners = new Listeners<Buffer, OutputStream>();
  private readonly exitListeners = new Listeners<ExitInfo>();
  /** Output that came before the first onData listener; undefined once handed to it. */
  private early: Chunk[] | undefined = [];
  private outputEnded!: () => void;
  private terminating: Promise<void> | undefined;

  /** `stdinOpen`: whether write() may take input (a terminal, or pipes asked to keep stdin). */
  protected constructor(private readonly stdinOpen: boolean) {
    this.outputDone = new Promise((resolve) => (this.outputEnded = resolve));
  }

  /** The first listener gets the output kept so far, before this returns; later ones get what comes after. */
  onData(listener: (chunk: Buffer, stream: OutputStream) => void): Disposable {
    return this.listen(this.dataListeners, listener);
  }

  /** As onData, but a chunk is the listener's only during the call (see ExecProcess.onDataView): nothing is copied. */
  onDataView(listener: (chunk: Buffer, stream: OutputStream) => void): Disposable {
    return this.listen(this.viewListeners, listener);
  }

  private listen(
    list: Listeners<Buffer, OutputStream>,
    listener: (chunk: Buffer, stream: OutputStream) => void,
  ): Disposable {
    // A closure of its own: the same function subscribed twice is called twice, and each subscription ends alone.
    const subscription = list.add((bytes, stream) => listener(bytes, stream));
    const early = this.early;
    this.early = undefined;
    for (const { bytes, stream } of early ?? []) listener(bytes, stream);
    return subscription;
  }

  onExit(listener: (info: ExitInfo) => void): Disposable {
    return this.exitListeners.add(listener);
  }

  /** Rejects when stdin is closed or the process has exited; resolves once the executor has taken the bytes. */
  write(data: string | Uint8Array): Promise<void> {
    if (!this.stdinOpen) return Promise.reject(new Error('stdin is closed for this session'));
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length === 0) return Promise.resolve();
    if (this.exitInfo !== undefined) return Promise.reject(new Error('process has exited'));
    return this.send(bytes);
  }

  /** Ends the process tree once; later calls share the first call's ending. */
  terminate(options: { force?: boolean } = {}): Promise<void> {
    this.terminating ??= this.end(options);
    return this.terminating;
  }

  /** Whether terminate() has been called. */
  protected get terminateCalled(): boolean {
    return this.terminating !== undefined;
  }

  /** Hands the input to the program (stdin is open and the process has not exited). */
  protected abstract send(bytes: Uint8Array): Promise<void>;

  /** Ends the whole tree (see ExecProcess.terminate); called once. */
  protected abstract end(options: { force?: boolean }): Promise<void>;

  /**
   * One chunk of output, to the listeners (or kept for the first). `reused`: `bytes` is a view of a buffer the caller
   * reads into again once this returns, so whatever keeps it gets a copy: onData's listeners (one copy for all of
   * them, made before any listener runs) and the output kept for the first listener.
   */
  protected emitData(bytes: Buffer, stream: OutputStream = 'stdout', reused = false): void {
    if (this.early !== undefined) {
      this.early.push({ bytes: reused ? Buffer.from(bytes) : bytes, stream });
      return;
    }
    const owned = reused && this.dataListeners.size > 0 ? Buffer.from(bytes) : bytes;
    this.viewListeners.emit(bytes, stream);
    this.dataListeners.emit(owned, stream);
  }

  /** The output kept for the first listener, as one buffer (for a start failure's message). */
  protected keptOutput(): Buffer {
    return Buffer.concat((this.early ?? []).map((chunk) => chunk.bytes));
  }

  /** Reports the exit, once: the first call wins. Every byte written before the exit must have been emitted. */
  protected finish(info: ExitInfo): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    this.onFinish(info);
    this.exitListeners.emit(info);
  }

  /** Called by finish() once exitInfo is set, before the exit listeners are told. */
  protected onFinish(_info: ExitInfo): void {
    // nothing by default
  }

  /** No more output will come. */
  protected endOutput(): void {
    this.outputEnded();
  }
}
