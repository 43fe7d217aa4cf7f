import { HeadTailBuffer } from '../buffer/head-tail-buffer.js';
import { Utf8StreamDecoder, decodeDrained } from '../buffer/utf8-decoder.js';
import type { WatchContext } from '../input-wait/return-policy.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { TerminalModes, outsideAlternateScreen } from '../screen/terminal-modes.js';
import { splitCursorDrawing } from '../screen/cursor-address.js';
import { RecentBytes } from '../screen/recent-bytes.js';
import { RECENT_OUTPUT_BYTES, SessionScreen } from '../screen/session-screen.js';
import { DEFAULT_COLS, DEFAULT_ROWS } from '../spawn/process-core.js';
import type { ExecProcess, ExitInfo } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { Listeners, type Disposable } from '../util/listeners.js';

/**
 * running: the process runs. exited: it has exited and every byte it printed before is buffered; the next reply
 * reports the exit. closed: the store let go of it (exit reported, close_session, pruning, shutdown); its process
 * tree is ended. Only ever forward: running → exited → closed, or running → closed.
 */
export type SessionLifecycle = 'running' | 'exited' | 'closed';

/** How long a closed session waits for its process's exit status after the tree was ended. */
const EXIT_STATUS_WAIT_MS = 1000;
const NO_BYTES = Buffer.alloc(0);

/** What drain() hands out: the text, and the bytes printed and dropped that it stands for. */
export interface DrainedText {
  text: string;
  totalBytes: number;
  omittedBytes: number;
  /** Whether the text begins inside the alternate screen. */
  startsInside: boolean;
  /** The text without what a program drew (in the alternate screen, or by moving the cursor), and whether it did. */
  withoutDrawing: () => { text: string; cursorAddressed: boolean };
}

/** How a session is kept, beside its process. */
export interface ExecSessionOptions {
  outputMaxBytes: number;
  nowMs: number;
  /** The sandbox it runs in; undefined: none (danger-full-access, or approved to run outside). */
  sandbox?: SandboxPolicy | undefined;
  /** The name of the executor it runs on (default `local`). */
  executor?: string;
  /** The terminal's size (tty sessions). */
  terminalSize?: { cols: number; rows: number };
  /** Keep a screen (tty sessions). */
  screen?: boolean;
  /** The `screen` its exec_command gave: what its replies do when a write_stdin leaves `screen` out. */
  screenChoice?: boolean | undefined;
}

/** One program as the manager keeps it: the process, its buffered output, its screen, its state, and bookkeeping. */
export class ExecSession {
  readonly startedAtMs: number;
  lastUsedMs: number;
  /** performance.now() of the latest output byte. */
  lastOutputAt = performance.now();
  /**
   * The return policy's mark from before the latest input written to the program (a call's or sendInput's): a poll
   * watches with it, so a program that has not yet woken to read what was typed is not taken for waiting.
   */
  inputMark: unknown;
  /**
   * The controller of this session's last wait, kept for its next call's: that wait ended without an abort, and left
   * no listener on its signal (UnifiedExecManager.waitFor).
   */
  spareWaitAbort: AbortController | undefined;
  private current: SessionLifecycle = 'running';
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
  readonly sandbox: SandboxPolicy | undefined;
  readonly executor: string;
  /** Its terminal's modes as its output set them (tty sessions). */
  readonly modes: TerminalModes | undefined;
  /** What its terminal shows (tty sessions, unless screens are off). */
  readonly screen: SessionScreen | undefined;
  readonly screenChoice: boolean | undefined;
  private size: { cols: number; rows: number };
  /** The latest output, read or not, for watchers (the live view) and the screen. */
  private readonly recent = new RecentBytes(RECENT_OUTPUT_BYTES);
  /** The program was in the alternate screen when the output was last drained: the next drain begins there. */
  private drainedInsideAlternate = false;
  /** Drained for a reply that was never delivered: the next drain hands it out first. */
  private givenBack: DrainedText | undefined;

  constructor(
    readonly id: number,
    readonly command: string,
    readonly process: ExecProcess,
    options: ExecSessionOptions,
  ) {
    this.startedAtMs = options.nowMs;
    this.lastUsedMs = options.nowMs;
    this.sandbox = options.sandbox;
    this.executor = options.executor ?? 'local';
    this.screenChoice = options.screenChoice;
    this.buffer = new HeadTailBuffer(options.outputMaxBytes);
    const recent = this.recent;
    this.size = options.terminalSize ?? { cols: DEFAULT_COLS, rows: DEFAULT_ROWS };
    const modes = process.tty ? new TerminalModes() : undefined;
    this.modes = modes;
    const screen =
      modes && options.screen ? new SessionScreen(this.size.cols, this.size.rows, recent, modes) : undefined;
    this.screen = screen;
    let exited!: (info: ExitInfo) => void;
    this.exitStatus = new Promise((resolve) => (exited = resolve));
    this.subscriptions = [
      // A view (see ExecProcess.onDataView): everything here that keeps bytes keeps a copy of its own.
      (process.onDataView ?? process.onData).call(process, (chunk) => {
        this.buffer.push(chunk);
        recent.push(chunk);
        const entered = modes?.feed(chunk) ?? false;
        screen?.write(chunk, entered);
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

  get state(): SessionLifecycle {
    return this.current;
  }

  /**
   * Set once the process has exited and its output is all buffered. A death by signal n reads 128 + n, except in a
   * terminal, where it reads 1 as Codex reports it (its pty library keeps no signal), so a model trained on Codex
   * reads the same; `signal` names the signal either way.
   */
  get exitInfo(): ExitInfo | undefined {
    const info = this.process.exitInfo;
    if (!info || !this.process.tty || info.signal === undefined || info.lost !== undefined) return info;
    return { ...info, exitCode: 1 };
  }

  /** The terminal's size as last set (80x24 by default); meaningful for tty sessions. */
  get terminalSize(): { cols: number; rows: number } {
    return { ...this.size };
  }

  /** Records a resize of the process's terminal: the screen follows it. */
  resize(cols: number, rows: number): void {
    this.size = { cols, rows };
    this.screen?.resize(cols, rows);
  }

  get bufferedBytes(): number {
    return this.buffer.retainedBytes;
  }

  /** What a return policy watches this session by, for one wait. */
  watchContext(signal: AbortSignal, trigger: WatchContext['trigger'], beforeInput?: unknown): WatchContext {
    return {
      process: this.process,
      lastOutputAt: () => this.lastOutputAt,
      onActivity: (listener) => this.onActivity(listener),
      signal,
      trigger,
      beforeInput,
    };
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
   * For a watcher that must not take the model's output (the live view): the latest output (up to
   * RECENT_OUTPUT_BYTES, as text), and `listener` called with each chunk from now on (see onOutput).
   */
  watch(listener: (text: string) => void): { recent: string; subscription: Disposable } {
    const bytes = this.recent.bytes();
    // A character the output leaves unfinished comes whole in the listener's first text, not here.
    const recent = bytes.subarray(0, bytes.length - Math.min(bytes.length, this.unfinished.length)).toString('utf8');
    return { recent, subscription: this.onOutput(listener) };
  }

  /**
   * Everything printed since the last drain, as text, and how many bytes that was before any were dropped (and how
   * many were: the text marks where, see decodeDrained). Once the
   * process has ended, a character it left unfinished comes out as U+FFFD instead of being held for more bytes.
   * `withoutDrawing`: the text less what a program drew, for a reply that may show the screen: what a full-screen
   * program drew in the alternate screen (see outsideAlternateScreen) and what one drew on the normal screen by
   * addressing the cursor (see splitCursorDrawing); `cursorAddressed` says whether it did the latter. For a session
   * without a screen: the text itself.
   */
  drain(): DrainedText {
    const drained = this.buffer.drain();
    const decoded = decodeDrained(this.decoder, drained);
    let text = this.current === 'running' ? decoded : decoded + this.decoder.end();
    let startsInside = this.drainedInsideAlternate;
    let { totalBytes, omittedBytes } = drained;
    this.drainedInsideAlternate = this.modes?.alternate ?? false;
    const back = this.givenBack;
    if (back) {
      this.givenBack = undefined;
      text = back.text + text;
      startsInside = back.startsInside;
      totalBytes += back.totalBytes;
      omittedBytes += back.omittedBytes;
    }
    return {
      text,
      totalBytes,
      omittedBytes,
      startsInside,
      withoutDrawing: () => {
        if (!this.screen) return { text, cursorAddressed: false };
        const { drawn, text: outside } = splitCursorDrawing(outsideAlternateScreen(text, startsInside), this.size.rows);
        return { text: outside, cursorAddressed: drawn };
      },
    };
  }

  /** A drain whose reply was never delivered (its caller gave up): the next drain begins with it, as if not taken. */
  giveBack(drained: DrainedText): void {
    this.givenBack = drained;
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
        this.screen?.dispose();
      }
    })();
    return this.closing;
  }

  /** Resolves once a close has ended the process tree; at once for a session that is not closed. */
  settled(): Promise<void> {
    return this.closing ?? Promise.resolve();
  }

  private moveTo(next: SessionLifecycle): void {
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
  // The chunk itself when it holds 3 bytes or more: nothing made per chunk (it may be a view, read into again).
  const bytes = chunk.length >= 3 ? chunk : Buffer.concat([before, chunk]);
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: the character began further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? Buffer.from(bytes.subarray(bytes.length - back)) : NO_BYTES;
  }
  return NO_BYTES;
}
