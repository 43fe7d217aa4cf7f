import { HeadTailBuffer } from '../buffer/head-tail-buffer.js';
import { Utf8StreamDecoder, decodeDrained } from '../buffer/utf8-decoder.js';
import { Listeners } from '../process/listeners.js';
import type { Disposable, ExecProcess, ExitInfo } from '../process/types.js';

/** One live program as the manager keeps it: the process, its buffered output, and bookkeeping. */
export class Session {
  readonly startedAtMs: number;
  lastUsedMs: number;
  exitInfo: ExitInfo | undefined;
  /** performance.now() of the latest output byte. */
  lastOutputAt = performance.now();
  private readonly buffer: HeadTailBuffer;
  private readonly decoder = new Utf8StreamDecoder();
  private readonly changed = new Listeners<void>();
  private readonly subscriptions: Disposable[];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: number,
    readonly command: string,
    readonly process: ExecProcess,
    outputMaxBytes: number,
    nowMs: number,
  ) {
    this.startedAtMs = nowMs;
    this.lastUsedMs = nowMs;
    this.buffer = new HeadTailBuffer(outputMaxBytes);
    this.subscriptions = [
      process.onData((chunk) => {
        this.buffer.push(chunk);
        this.lastOutputAt = performance.now();
        this.changed.emit();
      }),
      process.onExit((info) => {
        this.exitInfo = info;
        this.changed.emit();
      }),
    ];
    this.exitInfo = process.exitInfo;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  get bufferedBytes(): number {
    return this.buffer.retainedBytes;
  }

  /** Called on any output or exit. */
  onChange(listener: () => void): Disposable {
    return this.changed.add(listener);
  }

  /** Everything printed since the last drain, as text, and how many bytes that was before any were dropped. */
  drain(): { text: string; totalBytes: number } {
    const drained = this.buffer.drain();
    return { text: decodeDrained(this.decoder, drained), totalBytes: drained.totalBytes };
  }

  /** Runs calls on this session one after another, so concurrent writes never interleave. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops listening; the process itself is ended by the caller. */
  detach(): void {
    for (const sub of this.subscriptions) sub.dispose();
    this.changed.clear();
  }
}
