import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { OnReadOpts, SocketConstructorOpts } from 'node:net';
import { randomBytes } from 'node:crypto';
import tty from 'node:tty';
import { DEFAULT_EXEC_PATH, resolveProgram } from './env.js';
import { toExitInfo } from './exit-info.js';
import { FdWriter } from './fd-writer.js';
import { waitAtMost } from '../util/delay.js';
import { MarkerScanner } from './marker-scanner.js';
import { nativeHelpers } from '../util/native-addon.js';
import { PROCESS_TAG_VAR, newProcessTag } from '../linux/process-tag.js';
import { killSessionTree } from '../linux/process-tree.js';
import type { NativePty, NodePtyBinaries, NodePtyNativeVersion, NodePtyUtils } from './node-pty-native.js';
import { DEFAULT_COLS, DEFAULT_ROWS, ProcessCore } from './process-core.js';
import type { ExecProcess, LifetimeHooks, ExitInfo, SpawnOptions, TerminalHandle } from './types.js';
import type { StandbyLauncher } from './launcher-standby.js';

// node-pty's public UnixTerminal reports exit only after its read socket closes, and force-destroys that socket
// 200 ms after the child exits: bytes not yet read by then are lost (node-pty #72, #85, #726). We use its native
// fork (node-pty-native.d.ts declares it) so we see the exit at once and decide ourselves when output is complete.
const NODE_PTY_VERSION: NodePtyNativeVersion = '1.1.0';
const require = createRequire(import.meta.url);

/** The package of node-pty we call: node-pty itself, with its binaries prebuilt in per-platform packages. */
const NODE_PTY_PACKAGE = '@lydell/node-pty';

/**
 * Why node-pty's native module cannot be used as pty-process.ts calls it: another version of node-pty than the one
 * whose calls node-pty-native.d.ts declares, or a module without them. Exported for tests.
 */
export function nativePtyProblem(
  installed: string,
  module: Partial<Record<keyof NativePty, unknown>>,
  name: string = NODE_PTY_PACKAGE,
): string | undefined {
  if (installed !== NODE_PTY_VERSION) {
    return `unified-exec calls node-pty's native module, whose calls are node-pty ${NODE_PTY_VERSION}'s, but ${name} ${installed} is installed: install ${NODE_PTY_VERSION} exactly (npm ci, or npm install ${name}@${NODE_PTY_VERSION})`;
  }
  if (typeof module.fork !== 'function' || typeof module.resize !== 'function' || typeof module.open !== 'function') {
    return `${name} ${installed}'s native module has no fork, open or resize: reinstall it (npm ci)`;
  }
  return undefined;
}

/**
 * node-pty's native module, once the installed node-pty is checked to be the one whose API we call. Loaded by the
 * first PTY, not at import: a program that only runs commands on pipes never needs it.
 */
function loadNativePty(): NativePty {
  try {
    return loadChecked(NODE_PTY_PACKAGE, () =>
      (require(`${NODE_PTY_PACKAGE}/requireBinary`) as NodePtyBinaries).requireBinary('pty.node'),
    );
  } catch (error) {
    // No prebuilt binary fits this machine (musl, an older glibc, another CPU): node-pty built here, if installed.
    if (!isInstalled('node-pty')) {
      const build = `to build node-pty from source instead: npm install node-pty@${NODE_PTY_VERSION} (needs a C++ compiler, make and Python)`;
      throw new Error(`Cannot open a terminal: ${(error as Error).message.trim()}\n\nOr, ${build}`, { cause: error });
    }
    return loadChecked(
      'node-pty',
      () => (require('node-pty/lib/utils') as NodePtyUtils).loadNativeModule('pty').module,
    );
  }
}

function isInstalled(name: string): boolean {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** `load()` of the package `name`, once its version is the one whose calls we make and the module has them. */
function loadChecked(name: string, load: () => NativePty): NativePty {
  const installed = (require(`${name}/package.json`) as { version: string }).version;
  // The version first: a module of another version may not even load.
  const versionProblem = nativePtyProblem(
    installed,
    { fork: () => undefined, resize: () => undefined, open: () => undefined },
    name,
  );
  if (versionProblem) throw new Error(versionProblem);
  const module = load();
  const problem = nativePtyProblem(installed, module, name);
  if (problem) throw new Error(problem);
  return module;
}
let loadedPty: NativePty | undefined;
const nativePty = (): NativePty => (loadedPty ??= loadNativePty());

/** How long to wait for the drain marker before giving up (output flow stopped by ^S, a wedged terminal). */
const DRAIN_TIMEOUT_MS = 2000;
/**
 * The most a drain reads at once before it leaves the rest to a marker: a program still printing (a flood in the
 * background) would keep a read loop going, and the event loop with it.
 */
const MAX_DRAIN_NOW_BYTES = 256 * 1024;
/**
 * Where every terminal's stream reads into, one read at a time, and where drains read into: each read is handed on
 * as a view of it (emitData's `reused`), so a flood allocates nothing per read.
 */
const streamBuffer = Buffer.alloc(64 * 1024);
const drainBuffer = Buffer.alloc(64 * 1024);
/** The view of streamBuffer handed on last (see onRead). */
let streamView = streamBuffer.subarray(0, 0);
/**
 * A read is being handed to listeners. A drain asked for meanwhile (by a listener) takes the marker's way: a read of
 * its own would reach the listeners before the rest of them had this one, and could read over it.
 */
let handingOn = false;
/** How long a terminal's start may wait for a thread of libuv's pool before it is done on the JavaScript thread. */
const POOL_WAIT_MS = 25;
const EAGAIN = 11;
const EIO = 5;

/**
 * node-pty's fork passes the file it executes as argv[0] (execvp(file, [file, ...args]), searching the PATH of the
 * child's environment). For another argv[0], bash's `exec -a` replaces itself with the program under that name: the
 * same process, so it stays the session leader.
 */
function withArg0(program: string, args: readonly string[], options: SpawnOptions): { file: string; args: string[] } {
  if (options.arg0 === undefined || options.arg0 === options.argv[0]) return { file: program, args: [...args] };
  const bash = resolveProgram('bash', { PATH: options.env.PATH ?? DEFAULT_EXEC_PATH }, options.cwd);
  return { file: bash, args: ['-c', 'exec -a "$0" "$@"', options.arg0, program, ...args] };
}

/** A terminal made for a process started another way (a launcher in standby), its ends close-on-exec here. */
export interface OpenTerminal {
  master: number;
  slave: number;
  pty: string;
}

/** A new terminal of `cols` × `rows`, for a launcher in standby to take (`--tty`): see PtyProcess's `standby`. */
export function openTerminal(cols = DEFAULT_COLS, rows = DEFAULT_ROWS): OpenTerminal {
  const helpers = nativeHelpers();
  const terminal = nativePty().open(cols, rows);
  // As for fork's master: no later child may inherit either end.
  helpers.setCloexec(terminal.master);
  helpers.setCloexec(terminal.slave);
  return terminal;
}

/** A terminal with its process started: the terminal's ends and path (see OpenTerminal), and the process's pid. */
type StartedTerminal = OpenTerminal & { pid: number };

/** Where a terminal's exit goes: the process once there is one, else kept for it (see exitTeller). */
interface ExitTold {
  proc?: PtyProcess;
  early?: ExitInfo;
}

/** One program in a pseudo-terminal: session leader, stdout and stderr merged, stdin open. */
export class PtyProcess extends ProcessCore implements ExecProcess {
  readonly pid: number;
  readonly tty = true;
  /** In every process of the session's environment, so escapees (setsid, double fork) can be found. */
  readonly tag: string;
  readonly ptsPath: string;
  private readonly masterFd: number;
  /** A slave fd of our own: the terminal never hangs up under us, and it carries the drain marker. */
  private slaveFd: number | undefined;
  private readonly reader: tty.ReadStream;
  private readonly writer: FdWriter;
  private scanner: { scanner: MarkerScanner; done: () => void } | undefined;
  private drainChain: Promise<void> = Promise.resolve();
  /** Writes the current drain marker; closed with the slave fd so no retry can hit a reused fd number. */
  private markerWriter: FdWriter | undefined;
  private readerClosed = false;
  private exitSeen: ((info: ExitInfo) => void) | undefined;
  private readonly exitSeenPromise: Promise<ExitInfo>;
  readonly terminal: TerminalHandle;

  /**
   * Starts `options.argv` on a new terminal: by our addon, whose clone runs on a thread of libuv's pool so this thread
   * never waits for the child to exec (see spawnTerminal); by node-pty's fork where the addon cannot (an older kernel,
   * a program exec refuses: node-pty's child says why and exits 1). A cwd of /proc/self/fd/N must stay open until this
   * resolves.
   */
  static async start(options: SpawnOptions, lifetime?: LifetimeHooks): Promise<PtyProcess> {
    // Both natives first: a machine without them fails here, before a process is started.
    const helpers = nativeHelpers();
    const pty = nativePty();
    const tag = newProcessTag();
    const [name, ...rest] = options.argv;
    if (name === undefined) throw new Error('argv is empty');
    const { file, args } = withArg0(resolveProgram(name, options.env, options.cwd), rest, options);
    const env = Object.entries({ ...options.env, [PROCESS_TAG_VAR]: tag }).map(([k, v]) => `${k}=${v}`);
    const cols = options.cols ?? DEFAULT_COLS;
    const rows = options.rows ?? DEFAULT_ROWS;
    const told: ExitTold = {};
    const onExit = PtyProcess.exitTeller(told);
    const spawned = await new Promise<StartedTerminal | number>((resolve) => {
      const id = helpers.spawnTerminal(file, [file, ...args], env, options.cwd, cols, rows, onExit, (answer) => {
        clearTimeout(late);
        resolve(answer);
      });
      // The pool is shared with the process's file system calls and lookups, which can hold all its threads: a
      // start it has not begun by then is done on this thread.
      const late = setTimeout(() => helpers.startNow(id), POOL_WAIT_MS);
    });
    let started: StartedTerminal;
    if (typeof spawned === 'object') {
      started = spawned;
    } else {
      const term = pty.fork(file, args, env, options.cwd, cols, rows, -1, -1, true, '', onExit);
      // Without this every later child (PTY or pipes) inherits this master: it could read this session's terminal,
      // and the terminal would never hang up while any of them lives.
      helpers.setCloexec(term.fd);
      const slave = openSync(term.pty, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK);
      started = { master: term.fd, pid: term.pid, pty: term.pty, slave };
    }
    const proc = (told.proc = new PtyProcess(options, tag, started, lifetime));
    if (told.early) void proc.onChildExit(told.early);
    return proc;
  }

  /**
   * The callback that tells a terminal's exit to its process (or keeps it until there is one: it cannot come before,
   * as its watch starts with the start's answer). Made here, apart from the start: the addon holds it for the
   * session's life, and a closure keeps its whole scope alive, which in the start held the environment, the arguments
   * and the options (about 6 KiB a session).
   */
  private static exitTeller(told: ExitTold): (code: number, signal: number) => void {
    return (code, signal) => {
      const info = toExitInfo(code, signal);
      if (told.proc) void told.proc.onChildExit(info);
      else told.early = info;
    };
  }

  /**
   * A launcher already started on pipes (StandbyLaunchers) and the terminal made for it (openTerminal), which the
   * caller has handed the command and `--tty` (the terminal's path) to: adopted as this session's process. Its pipes
   * are closed here; its exit is told by its child process.
   */
  static adopt(
    options: SpawnOptions,
    lifetime: LifetimeHooks | undefined,
    standby: { launcher: StandbyLauncher; terminal: OpenTerminal },
  ): PtyProcess {
    const { launcher, terminal } = standby;
    const { child } = launcher;
    const proc = new PtyProcess(options, launcher.tag, { ...terminal, pid: child.pid! }, lifetime);
    child.once('exit', (code, signal) => void proc.onChildExit(toExitInfo(code, signal)));
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    return proc;
  }

  private constructor(
    options: SpawnOptions,
    tag: string,
    term: StartedTerminal,
    private readonly lifetime?: LifetimeHooks,
  ) {
    super(true);
    this.exitSeenPromise = new Promise((resolve) => (this.exitSeen = resolve));
    const helpers = nativeHelpers();
    this.tag = tag;
    this.slaveFd = term.slave;
    this.pid = term.pid;
    lifetime?.started(term.pid, this.tag);
    this.masterFd = term.master;
    this.ptsPath = term.pty;
    this.writer = new FdWriter(term.master);
    this.terminal = {
      path: term.pty,
      ...(options.supervisorDepth ? { supervisorDepth: options.supervisorDepth } : {}),
      flushOutput: (drain) => this.flushOutput(DRAIN_TIMEOUT_MS, drain),
      localModes: () => {
        if (this.slaveFd === undefined) return undefined;
        try {
          return helpers.localModes(this.slaveFd);
        } catch {
          return undefined;
        }
      },
    };
    // Node reads into streamBuffer and calls onRead instead of emitting 'data': no buffer allocated per read.
    const reading: SocketConstructorOpts & { onread: OnReadOpts } = {
      onread: { buffer: streamBuffer, callback: (n, buffer) => this.onRead(n, buffer) },
    };
    this.reader = new tty.ReadStream(term.master, reading);
    this.reader.resume(); // a tty stream starts reading once asked to (no 'data' listener asks here)
    // EIO is how a master reports that no slave is open any more: the normal end of the stream.
    this.reader.on('error', () => this.closeReader());
    this.reader.on('close', () => this.closeReader());
  }

  protected send(bytes: Uint8Array): Promise<void> {
    return this.writer.write(bytes);
  }

  get pendingInputBytes(): number {
    return this.writer.pendingBytes;
  }

  resize(cols: number, rows: number): void {
    if (!this.readerClosed) nativePty().resize(this.masterFd, cols, rows);
  }

  /**
   * Resolves once every byte written to the terminal before this call has been delivered to onData: a unique
   * marker written through our own slave fd comes out of the master after them, and is removed from the stream.
   */
  flushOutput(timeoutMs = DRAIN_TIMEOUT_MS, options: { byMarker?: boolean } = {}): Promise<void> {
    // Most drains are done at once, by reading; a drain already under way, or one that cannot be done so (or is not
    // to be), takes the marker's way, in turn.
    if (!options.byMarker && this.drainNow()) return Promise.resolve();
    const run = () => this.drainOnce(timeoutMs);
    this.drainChain = this.drainChain.then(run, run);
    return this.drainChain;
  }

  protected async end(options: { force?: boolean }): Promise<void> {
    await killSessionTree(this.pid, { tag: this.tag, ...(options.force ? { first: ['SIGKILL'] } : {}) });
    // The exit callback fires once the child is reaped; don't wait forever if it was reaped already.
    await waitAtMost(this.exitSeenPromise, 1000);
    this.releaseSlave();
    this.reader.destroy();
    this.closeReader();
    this.lifetime?.ended(this.pid);
  }

  /**
   * Drains by reading the master ourselves, now: a read of a terminal's master first waits for the kernel's worker to
   * hand over everything the other end wrote before (n_tty_read flushes the port's buffer work before it says there
   * is nothing), so reading until there is nothing is a drain barrier without the marker's trip through the terminal.
   * What it reads goes to onChunk as the stream's own reads do. False, having read nothing, when the stream has data
   * of its own not yet handed on (ours would overtake it) or a marker is under way; false too past
   * MAX_DRAIN_NOW_BYTES (output still flowing), the rest for a marker.
   */
  private drainNow(): boolean {
    if (this.readerClosed) return true;
    if (this.scanner !== undefined || this.reader.readableLength > 0 || this.reader.isPaused()) return false;
    if (handingOn) return false;
    const helpers = nativeHelpers();
    for (let total = 0; total < MAX_DRAIN_NOW_BYTES;) {
      const n = helpers.readNow(this.masterFd, drainBuffer);
      // EIO: no slave is open any more, and nothing more will come; the stream reads it too and ends.
      if (n <= 0) return n === 0 || n === -EAGAIN || n === -EIO;
      this.onChunk(drainBuffer.subarray(0, n), true);
      total += n;
    }
    return false;
  }

  /** A read of the stream, `n` bytes at the start of `buffer` (streamBuffer, read into again after this returns). */
  private onRead(n: number, buffer: Uint8Array): boolean {
    if (buffer === streamBuffer) {
      // The view of the last read serves the next of the same length: a flood's reads (4 KiB each) make no object.
      if (streamView.length !== n) streamView = streamBuffer.subarray(0, n);
      this.onChunk(streamView, true);
    } else {
      this.onChunk(Buffer.from(buffer.buffer, buffer.byteOffset, n), true);
    }
    return true; // false would pause the stream
  }

  private drainOnce(timeoutMs: number): Promise<void> {
    const slave = this.slaveFd;
    // The marker goes out after everything already queued; under a flood that can take a while, so the timeout
    // only guards against a terminal whose output is stopped (^S) or wedged.
    if (this.readerClosed || slave === undefined) return Promise.resolve();
    const marker = Buffer.from(`\x1b_ue-drain-${randomBytes(6).toString('hex')}\x1b\\`);
    const markerWriter = new FdWriter(slave);
    this.markerWriter = markerWriter;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        markerWriter.close(new Error('drain finished')); // a marker still queued must never go out late
        if (this.scanner?.done === finish) {
          const rest = this.scanner.scanner.flush();
          this.scanner = undefined;
          if (rest.length > 0) this.emitData(rest);
        }
        resolve();
      };
      this.scanner = { scanner: new MarkerScanner(marker), done: finish };
      // The output queue may be full (a flood we have not read yet): FdWriter retries EAGAIN until there is room.
      markerWriter.write(marker).catch(() => finish());
    });
  }

  /** `reused`: `chunk` is a view of a buffer read into again after this returns (see emitData). */
  private onChunk(chunk: Buffer, reused = false): void {
    const outer = handingOn;
    handingOn = true;
    try {
      const active = this.scanner;
      if (!active) {
        this.emitData(chunk, 'stdout', reused);
        return;
      }
      const { pass, found } = active.scanner.push(chunk);
      if (found) this.scanner = undefined;
      if (pass.length > 0) this.emitData(pass, 'stdout', reused);
      if (found) active.done();
    } finally {
      handingOn = outer;
    }
  }

  private async onChildExit(info: ExitInfo): Promise<void> {
    this.exitSeen?.(info);
    this.writer.close(new Error('process has exited'));
    await this.flushOutput();
    // Keep our slave fd until output is drained; after that a grandchild may still hold the terminal, and the
    // master reads on until it lets go (EIO) or the tree is terminated.
    this.releaseSlave();
    this.finish(info);
  }

  private releaseSlave(): void {
    if (this.slaveFd === undefined) return;
    this.markerWriter?.close(new Error('the terminal is closed'));
    try {
      closeSync(this.slaveFd);
    } catch {
      // already closed
    }
    this.slaveFd = undefined;
  }

  private closeReader(): void {
    if (this.readerClosed) return;
    this.readerClosed = true;
    const active = this.scanner;
    if (active) active.done();
    // The master fd goes with the reader: no write may be retried on its number afterwards.
    this.writer.close(new Error('the terminal is closed'));
    this.reader.destroy();
    this.endOutput();
  }
}
