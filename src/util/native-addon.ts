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
