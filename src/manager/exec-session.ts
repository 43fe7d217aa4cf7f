import { HeadTailBuffer } from '../buffer/head-tail-buffer.js';
import { Utf8StreamDecoder, decodeDrained } from '../buffer/utf8-decoder.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import type { ExecProcess, ExitInfo } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { Listeners, type Disposable } from '../util/listeners.js';

/**
 * running: the process runs. exited: it has exited and every byte it printed before is buffered; the next reply
 * reports the exit. closed: the store let go of it (exit reported, close_session, pruning, shutdown); its process
 * tree is ended. Only ever forward: running → exited → closed, or running → closed.
 */
export type ExecSessionState = 'running' | 'exited' | 'closed';

/** How long a closed session waits for its process's exit status after the tree was ended. */
const EXIT_STATUS_WAIT_MS = 1000;
const NO_BYTES = Buffer.alloc(0);

/** One program as the manager keeps it: the process, its buffered output, its state, and bookkeeping. */
export class ExecSession {
  readonly startedAtMs: number;
  lastUsedMs: number;
  /** performance.now() of the latest output byte. */
  lastOutputAt = performance.now();
  private current: ExecSessionState = 'running';
  private readonly buffer: HeadTailBuffer;
  private readonly decoder = new Utf8StreamDecoder();
  private readonly activity = new Listeners<void>();
  private readonly output = new Listeners<Buffer>();
  /** The first bytes of a character the output leaves unfinished so far: a new output listener's decoder needs them. */
  private unfinished: Buffer = NO_BYTES;
  private readonly subscriptions: Disposable[];
  private readonly exitStatus: Promise<ExitInfo>;
  private queue: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;

  constructor(
    readonly id: number,
    readonly command: string,
    readonly process: ExecProcess,
    outputMaxBytes: number,
    nowMs: number,
    /** The sandbox it runs in; undefined: none (danger-full-access, or approved to run outside). */
    readonly sandbox?: SandboxPolicy,
    /** The name of the executor it runs on. */
    readonly executor = 'local',
  ) {
    this.startedAtMs = nowMs;
    this.lastUsedMs = nowMs;
    this.buffer = new HeadTailBuffer(outputMaxBytes);
    let exited!: (info: ExitInfo) => void;
    this.exitStatus = new Promise((resolve) => (exited = resolve));
    this.subscriptions = [
      process.onData((chunk) => {
        this.buffer.push(chunk);
        this.lastOutputAt = performance.now();
        this.unfinished = unfinishedCharacter(this.unfinished, chunk);
        // Before activity: the chunk that lets a waiter answer is streamed before the answer drains it.
        this.output.emit(chunk);
        this.activity.emit();
      }),
      process.onExit((info) => {
        exited(info);
        this.moveTo('exited');
      }),
    ];
    if (process.exitInfo) {
      exited(process.exitInfo);
      this.current = 'exited';
    }
  }

  get state(): ExecSessionState {
    return this.current;
  }

  /** Set once the process has exited and its output is all buffered. */
  get exitInfo(): ExitInfo | undefined {
    return this.process.exitInfo;
  }

  get bufferedBytes(): number {
    return this.buffer.retainedBytes;
  }

  /** Called on any output and on every change of state. */
  onActivity(listener: () => void): Disposable {
    return this.activity.add(listener);
  }

  /**
   * Called with each chunk of output from now on, as text; the buffer keeps it for drain() all the same. A character
   * split across chunks (or begun before the call) comes whole in the later text; a chunk that only begins one calls
   * nothing. The listener must not throw.
   */
  onOutput(listener: (text: string) => void): Disposable {
    const decoder = new Utf8StreamDecoder();
    decoder.write(this.unfinished);
    return this.output.add((chunk) => {
      const text = decoder.write(chunk);
      if (text !== '') listener(text);
    });
  }

  /**
   * Everything printed since the last drain, as text, and how many bytes that was before any were dropped. Once the
   * process has ended, a character it left unfinished comes out as U+FFFD instead of being held for more bytes.
   */
  drain(): { text: string; totalBytes: number } {
    const drained = this.buffer.drain();
    const text = decodeDrained(this.decoder, drained);
    return { text: this.current === 'running' ? text : text + this.decoder.end(), totalBytes: drained.totalBytes };
  }

  /** Runs calls on this session one after another, so concurrent writes never interleave. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Moves to `closed` at once, so every waiter answers now, then ends the process tree with `terminate` and waits
   * for the exit status. Output printed meanwhile is still buffered for the waiters' replies. Safe to call twice.
   */
  close(terminate: () => Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      this.moveTo('closed');
      try {
        await terminate();
        await waitAtMost(this.exitStatus, EXIT_STATUS_WAIT_MS);
      } finally {
        for (const subscription of this.subscriptions) subscription.dispose();
        this.output.clear();
      }
    })();
    return this.closing;
  }

  /** Resolves once a close has ended the process tree; at once for a session that is not closed. */
  settled(): Promise<void> {
    return this.closing ?? Promise.resolve();
  }

  private moveTo(next: ExecSessionState): void {
    if (this.current === 'closed' || this.current === next) return;
    this.current = next;
    this.activity.emit();
  }
}

/**
 * The bytes that begin a UTF-8 character the stream leaves unfinished (0 to 3 of them), given those `before` the
 * chunk and the chunk. Only ever looks at the last 3 bytes: cheap enough for every chunk of every session.
 */
function unfinishedCharacter(before: Buffer, chunk: Buffer): Buffer {
  const bytes = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : Buffer.concat([before, chunk]);
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: the character began further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? Buffer.from(bytes.subarray(bytes.length - back)) : NO_BYTES;
  }
  return NO_BYTES;
}
