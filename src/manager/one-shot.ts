import { HeadTailBuffer } from '../buffer/head-tail-buffer.js';
import { Utf8StreamDecoder, decodeDrained } from '../buffer/utf8-decoder.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import type { SandboxPolicy } from '../sandbox/policy.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { CommandRequest, Executor, OutputStream } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { DEFAULT_EXEC_TIMEOUT_MS, TIMEOUT_EXIT_CODE } from './constants.js';
import { aborted, asSpawnFailed, invalidArgument } from './errors.js';
import { parseExecOptions, type ExecOptions } from './exec-options.js';

/** As Codex's one-shot exec: how long pipes may stay open (its time limit and timeout exit code are in constants.ts). */
const PIPE_DRAIN_MS = 2_000;
/**
 * Bytes kept of stdout and of stderr: exec() keeps the first and the last half of each and marks the gap, as sessions
 * do; the shell tool keeps the first ones, for the two aggregated too, as Codex does (see RunToEndOptions.keep).
 */
export const EXEC_OUTPUT_MAX_BYTES = 1024 * 1024;

export interface ExecOutcome {
  /** 128 + n for a death by signal n; 124 when it timed out. */
  exitCode: number;
  signal?: string;
  /**
   * What the program printed. Over 1 MiB (EXEC_OUTPUT_MAX_BYTES), the first and the last 512 KiB, with a line
   * `... N bytes omitted ...` between them where the rest was.
   */
  stdout: string;
  stderr: string;
  /**
   * stdout then stderr. After a timeout it starts with `command timed out after N milliseconds`, N the time passed by
   * then.
   */
  aggregatedOutput: string;
  /** Some output was dropped from the middle of stdout or stderr (each marks where, and how much). */
  truncated: boolean;
  durationMs: number;
  timedOut: boolean;
}

/**
 * Runs a command to completion, stdin closed (after `input`), and answers with its exit and output: Codex's one-shot
 * exec. On timeout the whole tree (its process group, descendants, and escapees by process tag) is killed; pipes a
 * grandchild keeps open are read for at most 2 s more. Nothing it started outlives the call, nor this process: the
 * watchdog ends the tree if this process dies during the call.
 */
export async function exec(options: ExecOptions): Promise<ExecOutcome> {
  const checked = parseExecOptions(options);
  const { command } = checked;
  const request: CommandRequest = {
    command:
      typeof command === 'string'
        ? { script: command, shell: checked.shell ?? (process.env.SHELL || '/bin/bash'), login: checked.login ?? false }
        : { argv: command },
    workdir: checked.cwd,
    defaultWorkdir: process.cwd(),
    workdirName: 'cwd',
    env: checked.env ?? {},
    tty: false,
    ...(checked.input !== undefined ? { stdin: true } : {}),
    ...(checked.sandbox ? { sandbox: checked.sandbox } : {}),
  };
  const executor = checked.executor ?? new LocalExecutor({ sandbox: SandboxLauncher.shared(checked.sandboxBackend) });
  const { outcome } = await runToEnd(executor, request, { ...checked, keep: 'head-and-tail' });
  return outcome;
}

/** What runToEnd takes beside the command: see ExecOptions. */
export interface RunToEndOptions {
  timeoutMs?: number | undefined;
  input?: string | undefined;
  onOutput?: ((text: string) => void) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * What is kept of a stream over EXEC_OUTPUT_MAX_BYTES. head-and-tail: its first and last half, the gap marked (the
   * library's exec). first: its first bytes, and of the two aggregated Codex's share (its `shell` tool, which a model
   * reads byte for byte as Codex's).
   */
  keep: 'head-and-tail' | 'first';
}

/**
 * Runs `request` on `executor` to its end or its time limit (see exec); answers with the outcome and the sandbox
 * the executor laid (undefined: none, as in a container).
 */
export async function runToEnd(
  executor: Executor,
  request: CommandRequest,
  options: RunToEndOptions,
): Promise<{ outcome: ExecOutcome; sandbox: SandboxPolicy | undefined }> {
  const begun = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalidArgument(`Expected \`timeoutMs\` to be a positive number of milliseconds, got ${timeoutMs}`);
  }
  checkCommand(request.command);
  const { signal } = options;
  if (signal?.aborted) throw aborted(signal.reason);
  let started;
  try {
    await executor.prepare?.(request);
    started = await executor.start(request);
  } catch (err) {
    throw asSpawnFailed(err);
  }
  const proc = started.process;
  const output = capture(options.keep);
  const { onOutput } = options;
  const text = onOutput ? { stdout: streamText(onOutput), stderr: streamText(onOutput) } : undefined;
  proc.onData((chunk: Buffer, stream: OutputStream | undefined) => {
    // An executor of an older interface may not name the stream.
    const from = stream === 'stderr' ? 'stderr' : 'stdout';
    output[from].push(chunk);
    text?.[from].write(chunk);
  });
  // An executor that answers asynchronously may have seen a short command end before it answered the start.
  const exited = new Promise<'exited'>((resolve) =>
    proc.exitInfo ? resolve('exited') : proc.onExit(() => resolve('exited')),
  );
  if (options.input !== undefined) {
    if (!proc.closeInput) {
      await proc.terminate({ force: true });
      throw invalidArgument('`input` needs an executor that can close stdin: run it on this machine');
    }
    // A program that exits without reading all of it closes the pipe: that is its business, not an error of ours.
    proc.write(options.input).catch(() => undefined);
    proc.closeInput();
  }

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  // Aborted while it started, or now: either way the tree is ended as on a timeout.
  const abortedNow = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  const first = await Promise.race([exited, timedOut, abortedNow]);
  clearTimeout(timer);
  if (onAbort) signal?.removeEventListener('abort', onAbort);
  // As Codex words it: the time that had passed when the limit struck (a little over the limit, never under).
  const timedOutAfterMs = Math.max(timeoutMs, Math.round(performance.now() - begun));
  const status = first === 'exited' ? proc.exitInfo : undefined;
  if (first !== 'exited') await proc.terminate({ force: true });
  await waitAtMost(proc.outputDone, PIPE_DRAIN_MS);
  // Whatever is left (a background job still holding on, or one that let go of the pipes) ends with the call.
  await proc.terminate();
  text?.stdout.end();
  text?.stderr.end();
  if (first === 'aborted') throw aborted(signal?.reason);

  const info = status ?? { exitCode: TIMEOUT_EXIT_CODE };
  const kept = keptOutput(output);
  const outcome: ExecOutcome = {
    exitCode: info.exitCode,
    ...(info.signal ? { signal: info.signal } : {}),
    stdout: kept.stdout,
    stderr: kept.stderr,
    // As Codex's shell tool reports a timeout: a first line, then what it printed.
    aggregatedOutput:
      (first === 'timeout' ? `command timed out after ${timedOutAfterMs} milliseconds\n` : '') +
      withLostNote(kept.aggregated, status?.lost),
    truncated: kept.truncated,
    durationMs: performance.now() - begun,
    timedOut: first === 'timeout',
  };
  return { outcome, sandbox: started.sandbox };
}

/** Both streams' bytes as they are kept (see RunToEndOptions.keep). */
type Captured =
  | { keep: 'first'; stdout: CappedBytes; stderr: CappedBytes }
  | { keep: 'head-and-tail'; stdout: HeadTailBuffer; stderr: HeadTailBuffer };

const capture = (keep: RunToEndOptions['keep']): Captured =>
  keep === 'first'
    ? { keep, stdout: new CappedBytes(EXEC_OUTPUT_MAX_BYTES), stderr: new CappedBytes(EXEC_OUTPUT_MAX_BYTES) }
    : { keep, stdout: new HeadTailBuffer(EXEC_OUTPUT_MAX_BYTES), stderr: new HeadTailBuffer(EXEC_OUTPUT_MAX_BYTES) };

/** The two streams as text, and the two aggregated, by the rule of what kept them. */
function keptOutput(output: Captured): { stdout: string; stderr: string; aggregated: string; truncated: boolean } {
  if (output.keep === 'first') {
    const [stdout, stderr] = [output.stdout.bytes(), output.stderr.bytes()];
    return {
      stdout: decode(stdout),
      stderr: decode(stderr),
      aggregated: decode(aggregateOutput(stdout, stderr, EXEC_OUTPUT_MAX_BYTES)),
      truncated: output.stdout.droppedBytes + output.stderr.droppedBytes > 0,
    };
  }
  const truncated = output.stdout.omittedBytes + output.stderr.omittedBytes > 0;
  const [stdout, stderr] = [markedText(output.stdout), markedText(output.stderr)];
  return { stdout, stderr, aggregated: stdout + stderr, truncated };
}

/** A stream's head and tail as text, the gap marked on a line of its own as in a session's reply. */
function markedText(buffer: HeadTailBuffer): string {
  const decoder = new Utf8StreamDecoder();
  return decodeDrained(decoder, buffer.drain()) + decoder.end();
}

/** Why the exit status never came (its exec-server or container went away), on a line after what it printed. */
function withLostNote(output: string, lost: string | undefined): string {
  if (lost === undefined) return output;
  return `${output}${output === '' || output.endsWith('\n') ? '' : '\n'}${lost}\n`;
}

function checkCommand(command: CommandRequest['command']): void {
  if ('script' in command) {
    if (command.script.trim() === '') {
      throw invalidArgument('Expected `command` to be a command line, got an empty string');
    }
    return;
  }
  if (command.argv.length === 0 || command.argv[0] === '') {
    throw invalidArgument('Expected `command` to name a program, got an empty argv');
  }
}

/**
 * stdout then stderr within `maxBytes`: all of both when they fit; otherwise a third of the budget for stdout and
 * the rest for stderr, and what one side does not use goes to the other (Codex's rule).
 */
export function aggregateOutput(stdout: Uint8Array, stderr: Uint8Array, maxBytes: number): Buffer {
  if (stdout.length + stderr.length <= maxBytes) return Buffer.concat([stdout, stderr]);
  const wantStdout = Math.min(stdout.length, Math.floor(maxBytes / 3));
  const stderrTake = Math.min(stderr.length, Math.max(0, maxBytes - wantStdout));
  const remaining = Math.max(0, maxBytes - (wantStdout + stderrTake));
  const stdoutTake = wantStdout + Math.min(remaining, stdout.length - wantStdout);
  return Buffer.concat([stdout.subarray(0, stdoutTake), stderr.subarray(0, stderrTake)]);
}

/** One output stream's bytes as text for `listener`: no character split, empty text never, a throw swallowed. */
function streamText(listener: (text: string) => void): { write(chunk: Buffer): void; end(): void } {
  const decoder = new Utf8StreamDecoder();
  const send = (text: string) => {
    if (text === '') return;
    try {
      listener(text);
    } catch {
      // The caller's listener failing is no failure of the command.
    }
  };
  return { write: (chunk) => send(decoder.write(chunk)), end: () => send(decoder.end()) };
}

const decode = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);

/** The first `max` bytes of a stream; later bytes are dropped (reading goes on, so the writer never blocks). */
class CappedBytes {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** Bytes that came past the cap. */
  droppedBytes = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.size;
    this.droppedBytes += Math.max(0, chunk.length - Math.max(0, room));
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
