// node-pty's private native API, which pty-process.ts drives directly: exactly as node-pty 1.1.0 defines it
// (src/unix/pty.cc there). package.json pins @lydell/node-pty (node-pty 1.1.0 with prebuilt binaries) to that version,
// and pty-process.ts checks the installed one at its first terminal: 1.2.0 changes these calls (resize gains
// arguments), so another version must not be used silently.

/** The node-pty version this API is node-pty's own for. */
export type NodePtyNativeVersion = '1.1.0';

/** node-pty's native `pty` module (`require('node-pty/lib/utils').loadNativeModule('pty').module`). */
export interface NativePty {
  /** forkpty() and execvp(file, [file, ...args]); onExit is called from the module's waiter thread once reaped. */
  fork(
    file: string,
    args: string[],
    env: string[],
    cwd: string,
    cols: number,
    rows: number,
    uid: number,
    gid: number,
    utf8: boolean,
    helperPath: string,
    onExit: (code: number, signal: number) => void,
  ): { fd: number; pid: number; pty: string };
  /** TIOCSWINSZ on the master. */
  resize(fd: number, cols: number, rows: number): void;
  /** openpty() with the kernel's default modes, both ends non-blocking: for a process started another way. */
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
}

/** node-pty's `lib/utils`, the loader of its native modules. */
export interface NodePtyUtils {
  loadNativeModule(name: 'pty'): { dir: string; module: NativePty };
}

/** `@lydell/node-pty/requireBinary`: the same native modules, from the package prebuilt for this platform. */
export interface NodePtyBinaries {
  requireBinary(file: 'pty.node'): NativePty;
}
