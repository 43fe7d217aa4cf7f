import { createRequire } from 'node:module';
import { findNativeFile, nativeFileHelp } from '../util/native-binary.js';

export interface NativeHelpers {
  /** Marks an fd close-on-exec. */
  setCloexec(fd: number): void;
  /** The local modes of the terminal behind `fd` that matter to us. */
  localModes(fd: number): { canonical: boolean; echo: boolean };
}

const ADDON_FILE = 'unified_exec_native.node';
const require = createRequire(import.meta.url);
let loaded: NativeHelpers | undefined;

/**
 * Our small addon (native/unified-exec.c, N-API), loaded on the first PTY: pipes never need it. Throws saying how to
 * build it when there is none for this machine or it does not load here (another libc).
 */
export function nativeHelpers(): NativeHelpers {
  if (loaded) return loaded;
  const path = findNativeFile(ADDON_FILE);
  if (path === undefined) throw new Error(`Cannot open a terminal: ${nativeFileHelp(ADDON_FILE)}`);
  try {
    return (loaded = require(path) as NativeHelpers);
  } catch (error) {
    const why = `${path} does not load here (${(error as Error).message.split('\n')[0]})`;
    throw new Error(`Cannot open a terminal: ${nativeFileHelp(ADDON_FILE, why)}`, { cause: error });
  }
}
