import { Utf8StreamDecoder } from '../buffer/utf8-decoder.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import type { SandboxBackend, SandboxPolicy } from '../sandbox/policy.js';
import type { EnvPolicy } from '../spawn/env.js';
import { LocalExecutor } from '../spawn/local-executor.js';
import type { CommandRequest, Executor, OutputStream } from '../spawn/types.js';
import { waitAtMost } from '../util/delay.js';
import { DEFAULT_EXEC_TIMEOUT_MS, TIMEOUT_EXIT_CODE } from './constants.js';
import { asSpawnFailed, invalidArgument } from './errors.js';

/** As Codex's one-shot exec: how long pipes may stay open (its time limit and timeout exit code are in constants.ts). */
const PIPE_DRAIN_MS = 2_000;
/** Bytes kept of stdout, of stderr, and of the two aggregated: the first ones, the rest counted and dropped. */
export const EXEC_OUTPUT_MAX_BYTES = 1024 * 1024;

export interface ExecOptions {
  /** An argv (run as is, looked up in PATH) or a shell command line (run with `shell -c`, or `-lc` with `login`). */
  command: string | readonly string[];
  /** Default: process.cwd(). */
  cwd?: string;
  /** Which variables the program inherits; the session variables of every exec session are set too. */
  env?: EnvPolicy;
  /** Killed with its whole process group after this long. Default 10000. */
  timeoutMs?: number;
  /** For a command line: default $SHELL, else /bin/bash. */
  shell?: string;
  /** For a command line: run the shell as a login shell. Default false. */
  login?: boolean;
  /** Run inside this sandbox (bubblewrap). Default: none. */
  sandbox?: SandboxPolicy;
  /** The sandbox's backend on this machine (default: chosen on first use). */
  sandboxBackend?: SandboxBackend;
  /**
   * Where to run it (default: this machine). `input` needs one whose processes can close stdin (this machine's).
   */
  executor?: Executor;
  /** Written to the program's stdin, which is then closed. Default: nothing (stdin ends at once). */
  input?: string;
  /**
   * Called with stdout and stderr text as it arrives, in arrival order (each stream decoded on its own, so no
   * character is split), until the call answers; all of it is in the outcome too. A listener that throws changes
   * nothing for the call.
   */
  onOutput?: (text: string) => void;
}

export interface ExecOutcome {
  /** 128 + n for a death by signal n; 124 when it timed out. */
  exitCode: number;
  signal?: string;
  stdout: string;
  stderr: string;
  /**
   * stdout then stderr; over the cap, a third for stdout and two thirds for stderr (what one does not use goes to the
   * other). After a timeout it starts with `command timed out after N milliseconds`, N the time passed by then.
   */
  aggregatedOutput: string;
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
  const { command } = options;
  const request: CommandRequest = {
    command:
      typeof command === 'string'
        ? { script: command, shell: options.shell ?? (process.env.SHELL || '/bin/bash'), login: options.login ?? false }
        : { argv: command },
    workdir: options.cwd,
    defaultWorkdir: process.cwd(),
    workdirName: 'cwd',
    env: options.env ?? {},
    tty: false,
    ...(options.input !== undefined ? { stdin: true } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  };
  const executor = options.executor ?? new LocalExecutor({ sandbox: SandboxLauncher.shared(options.sandboxBackend) });
  const { outcome } = await runToEnd(executor, request, options);
  return outcome;
}

/** What runToEnd takes beside the command: see ExecOptions. */
export interface RunToEndOptions {
  timeoutMs?: number;
  input?: string;
  onOutput?: (text: string) => void;
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
  let started;
  try {
    await executor.prepare?.(request);
    started = await executor.start(request);
  } catch (err) {
    throw asSpawnFailed(err);
  }
  const proc = started.process;
  const output = { stdout: new CappedBytes(EXEC_OUTPUT_MAX_BYTES), stderr: new CappedBytes(EXEC_OUTPUT_MAX_BYTES) };
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
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const first = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  // As Codex words it: the time that had passed when the limit struck (a little over the limit, never under).
  const timedOutAfterMs = Math.max(timeoutMs, Math.round(performance.now() - begun));
  const status = first === 'timeout' ? undefined : proc.exitInfo;
  if (first === 'timeout') await proc.terminate({ force: true });
  await waitAtMost(proc.outputDone, PIPE_DRAIN_MS);
  // Whatever is left (a background job still holding on, or one that let go of the pipes) ends with the call.
  await proc.terminate();
  text?.stdout.end();
  text?.stderr.end();

  const info = status ?? { exitCode: TIMEOUT_EXIT_CODE };
  const stdout = output.stdout.bytes();
  const stderr = output.stderr.bytes();
  const outcome: ExecOutcome = {
    exitCode: info.exitCode,
    ...(info.signal ? { signal: info.signal } : {}),
    stdout: decode(stdout),
    stderr: decode(stderr),
    // As Codex's shell tool reports a timeout: a first line, then what it printed.
    aggregatedOutput:
      (first === 'timeout' ? `command timed out after ${timedOutAfterMs} milliseconds\n` : '') +
      withLostNote(decode(aggregateOutput(stdout, stderr, EXEC_OUTPUT_MAX_BYTES)), status?.lost),
    durationMs: performance.now() - begun,
    timedOut: first === 'timeout',
  };
  return { outcome, sandbox: started.sandbox };
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

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.size += kept.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
