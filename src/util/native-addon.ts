import { createRequire } from 'node:module';
import { findNativeFile, nativeFileHelp } from './native-binary.js';

export interface NativeHelpers {
  /** Marks an fd close-on-exec. */
  setCloexec(fd: number): void;
  /** The local modes of the terminal behind `fd` that matter to us. */
  localModes(fd: number): { canonical: boolean; echo: boolean };
  /**
   * The TCP socket of this network namespace whose own address is `localAddress`:`localPort` and whose peer is
   * `remoteAddress`:`remotePort` (both IPv4 or both IPv6, without a zone; `interfaceIndex`: a link-local pair's
   * interface, else 0): its owner's uid, its inode (0 once no process holds it) and the cgroup (v2) id of the
   * process that made it (kernel 5.9+); null when there is none.
   */
  tcpSocketOwner(
    localAddress: string,
    localPort: number,
    remoteAddress: string,
    remotePort: number,
    interfaceIndex: number,
  ): { uid: number; inode: number; cgroup?: bigint } | null;
  /**
   * For each unix socket's inode, the inode of its peer as the kernel knows it (sock_diag), 0 when it has none, or
   * undefined where this network namespace has no socket of that inode. Throws where sock_diag cannot be asked.
   */
  unixPeers(inodes: readonly number[]): (number | undefined)[];
  /**
   * Each file's text (latin1), or undefined where it cannot be read, read one after the other in the order given. A
   * process's or thread's stat, schedstat, sched and syscall stay open (32 at most, each for a second or two unread)
   * and are read again from their start next time, which /proc answers afresh; one whose process has gone is opened
   * again by its path.
   */
  readFiles(paths: readonly string[]): (string | undefined)[];
  /** Where a link points, and which file (`dev:ino`) it leads to when that can be stat'ed; undefined: unreadable. */
  linkTarget(path: string): { target: string; id?: string } | undefined;
  /**
   * `length` bytes (1 to 65536) of process `pid`'s memory at `address`, or undefined where they cannot all be read
   * (the process gone, the address unmapped, access refused): one process_vm_readv.
   */
  readMemory(pid: number, address: number, length: number): Buffer | undefined;
  /**
   * One read of what the non-blocking `fd` holds now into `buffer`: the bytes read (0 at its end) or -errno (-EAGAIN:
   * nothing now). On a terminal's master it is a drain barrier: the kernel hands over first what was written before.
   */
  readNow(fd: number, buffer: Buffer): number;
  /**
   * `file` (a path) started with `argv` and `env` (`NAME=value` strings) in `cwd` (none: ours) on a new terminal of
   * `cols` × `rows` in node-pty's modes, as the leader of a new session whose controlling terminal it is, every signal
   * at its default. Returns at once: the clone runs on a thread of libuv's pool, and `onStarted` is called with the
   * pid, the terminal's master (non-blocking) and a slave fd of ours (non-blocking), both close-on-exec; or with an
   * errno when it could not be started so (no pidfds before Linux 5.3, exec or chdir failed, a path too long): then
   * nothing is left open, and the caller starts it another way. `onExit(code, signal)` once it exited and was reaped.
   * Returns the start's id, for startNow.
   */
  spawnTerminal(
    file: string,
    argv: readonly string[],
    env: readonly string[],
    cwd: string,
    cols: number,
    rows: number,
    onExit: (code: number, signal: number) => void,
    onStarted: (started: { pid: number; master: number; slave: number; pty: string } | number) => void,
  ): number;
  /**
   * The start `id` (spawnTerminal's), when libuv's pool has not begun it yet (its threads all busy), taken back and
   * done on this thread; true when it was. Its onStarted is called later either way.
   */
  startNow(id: number): boolean;
}

const ADDON_FILE = 'unified_exec_native.node';
const require = createRequire(import.meta.url);
let loaded: NativeHelpers | Error | undefined;

/** The addon, loaded once; the error says how to build it when there is none for this machine or it does not load. */
function load(): NativeHelpers | Error {
  if (loaded) return loaded;
  const path = findNativeFile(ADDON_FILE);
  if (path === undefined) return (loaded = new Error(nativeFileHelp(ADDON_FILE)));
  try {
    return (loaded = require(path) as NativeHelpers);
  } catch (error) {
    const why = `${path} does not load here (${(error as Error).message.split('\n')[0]})`;
    return (loaded = new Error(nativeFileHelp(ADDON_FILE, why), { cause: error }));
  }
}

/**
 * Our small addon (native/unified-exec.c, N-API), loaded on the first PTY (pipes never need it) or when a listener at
 * its connection cap asks whose a connection is (connection-limits.ts, which does without it). Throws saying how to
 * build it when there is none for this machine or it does not load here (another libc).
 */
export function nativeHelpers(): NativeHelpers {
  const helpers = load();
  if (helpers instanceof Error) throw new Error(`Cannot open a terminal: ${helpers.message}`, { cause: helpers });
  return helpers;
}

/** The addon, or undefined where it does not load: for what works, less well, without it. */
export function optionalNativeHelpers(): NativeHelpers | undefined {
  const helpers = load();
  return helpers instanceof Error ? undefined : helpers;
}
