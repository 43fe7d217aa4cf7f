import { createRequire } from 'node:module';

export interface NativeHelpers {
  /** Marks an fd close-on-exec. */
  setCloexec(fd: number): void;
  /** The local modes of the terminal behind `fd` that matter to us. */
  localModes(fd: number): { canonical: boolean; echo: boolean };
}

const require = createRequire(import.meta.url);

/** Our small addon (native/unified-exec.c, built at install), or undefined when it was not built. */
export const nativeHelpers: NativeHelpers | undefined = (() => {
  try {
    // Same relative path from src/spawn/ (tests) and dist/spawn/ (the build).
    return require('../../build/Release/unified_exec_native.node') as NativeHelpers;
  } catch {
    return undefined;
  }
})();
