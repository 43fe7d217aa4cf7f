import { spawn } from 'node:child_process';
import { Utf8StreamDecoder } from '../buffer/utf8-decoder.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { killSessionTree } from '../linux/process-tree.js';
import { Watchdog } from '../linux/watchdog.js';
import { SandboxLauncher } from '../sandbox/launcher.js';
import type { SandboxBackend, SandboxPolicy } from '../sandbox/policy.js';
import { buildEnv, type EnvPolicy } from '../spawn/env.js';
import { toExitInfo } from '../spawn/exit-info.js';
import { resolveWorkdir } from '../spawn/resolve.js';
import { findExecutable } from '../util/executable.js';
import { waitAtMost } from '../util/delay.js';
import { DEFAULT_EXEC_TIMEOUT_MS, TIMEOUT_EXIT_CODE } from './constants.js';
import { invalidArgument, spawnFailed } from './errors.js';

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
  /** The sandbox's backend (default: chosen on first use). */
  sandboxBackend?: SandboxBackend;
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
 * Runs a command to completion, stdin closed (after `input`), and answers with its exit and output: Codex's one-shot exec. On
 * timeout the whole tree (its process group, descendants, and escapees by process tag) is killed; pipes a
 * grandchild keeps open are read for at most 2 s more. Nothing it started outlives the call, nor this process: the
 * watchdog ends the tree if this process dies during the call.
 */
export async function exec(options: ExecOptions): Promise<ExecOutcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalidArgument(`Expected \`timeoutMs\` to be a positive number of milliseconds, got ${timeoutMs}`);
  }
  const env = buildEnv(options.env);
  const argv = commandArgv(options);
  if (!findExecutable(argv[0]!, env.PATH)) {
    throw spawnFailed(`\`${argv[0]}\` was not found or is not executable`);
  }
  let cwd: string;
  try {
    cwd = resolveWorkdir(options.cwd ?? process.cwd(), process.cwd());
  } catch (err) {
    throw spawnFailed(`${(err as Error).message}; pass an existing \`cwd\``, err);
  }
  const tag = newProcessTag();
  let run = { argv, env, release: () => undefined as void };
  if (options.sandbox) {
    try {
      const launcher = SandboxLauncher.shared(options.sandboxBackend);
      await launcher.ready(options.sandbox);
      run = launcher.wrap(options.sandbox, { argv, cwd, env });
    } catch (err) {
      throw spawnFailed((err as Error).message, err);
    }
  }
  const child = spawn(run.argv[0]!, run.argv.slice(1), {
    cwd,
    env: { ...run.env, [PROCESS_TAG_VAR]: tag },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // its own process group and session: the unit the timeout kills
  });
  child.on('error', () => undefined);
  // A program that exits without reading all of it closes the pipe: that is its business, not an error of ours.
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input);
  if (child.pid === undefined) {
    run.release();
    throw spawnFailed(`could not start ${argv[0]}`);
  }
  const pid = child.pid;
  // As every session is: if this process dies mid-call (even by SIGKILL), the watchdog ends what the call started.
  const watchdog = Watchdog.shared();
  watchdog.watch(pid, tag);
  const stdout = new CappedBytes(EXEC_OUTPUT_MAX_BYTES);
  const stderr = new CappedBytes(EXEC_OUTPUT_MAX_BYTES);
  const { onOutput } = options;
  const [stdoutText, stderrText] = onOutput ? [streamText(onOutput), streamText(onOutput)] : [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    stdoutText?.write(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    stderrText?.write(chunk);
  });
  const pipesClosed = Promise.all([
    new Promise((resolve) => child.stdout.once('close', resolve)),
    new Promise((resolve) => child.stderr.once('close', resolve)),
  ]);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const first = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  // As Codex words it: the time that had passed when the limit struck (a little over the limit, never under).
  const timedOutAfterMs = Math.max(timeoutMs, Math.round(performance.now() - started));
  if (first === 'timeout') await killSessionTree(pid, { first: ['SIGKILL'], tag });
  const status = first === 'timeout' ? undefined : first;
  await waitAtMost(pipesClosed, PIPE_DRAIN_MS);
  // Whatever is left (a background job still holding on, or one that let go of the pipes) ends with the call.
  await killSessionTree(pid, { first: ['SIGTERM'], tag });
  watchdog.unwatch(pid);
  child.stdout.destroy();
  child.stderr.destroy();
  setImmediate(run.release); // may read /proc: not on the way to the answer
  stdoutText?.end();
  stderrText?.end();

  const info = status ? toExitInfo(status.code, status.signal) : { exitCode: TIMEOUT_EXIT_CODE };
  return {
    exitCode: info.exitCode,
    ...('signal' in info && info.signal ? { signal: info.signal } : {}),
    stdout: decode(stdout.bytes()),
    stderr: decode(stderr.bytes()),
    // As Codex's shell tool reports a timeout: a first line, then what it printed.
    aggregatedOutput:
      (first === 'timeout' ? `command timed out after ${timedOutAfterMs} milliseconds\n` : '') +
      decode(aggregateOutput(stdout.bytes(), stderr.bytes(), EXEC_OUTPUT_MAX_BYTES)),
    durationMs: performance.now() - started,
    timedOut: first === 'timeout',
  };
}

function commandArgv(options: ExecOptions): string[] {
  const { command } = options;
  if (typeof command === 'string') {
    if (command.trim() === '') throw invalidArgument('Expected `command` to be a command line, got an empty string');
    const shell = options.shell ?? (process.env.SHELL || '/bin/bash');
    return [shell, options.login ? '-lc' : '-c', command];
  }
  if (command.length === 0 || command[0] === '') {
    throw invalidArgument('Expected `command` to name a program, got an empty argv');
  }
  return [...command];
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
