const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof SIGNALS)[number], number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/**
 * On SIGINT/SIGTERM/SIGHUP run `cleanup` (end every session) and exit; a second signal exits at once, and the
 * manager's exit hook still SIGKILLs whatever process group is left.
 */
export function exitOnSignals(cleanup: () => Promise<void>, log: (line: string) => void, exitCode?: number): void {
  let stopping = false;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      const code = exitCode ?? 128 + SIGNAL_NUMBERS[signal];
      if (stopping) process.exit(code);
      stopping = true;
      log(`${signal}: ending every session`);
      cleanup().then(
        () => process.exit(code),
        (error: unknown) => {
          log(`shutdown failed: ${String(error)}`);
          process.exit(code);
        },
      );
    });
  }
}
