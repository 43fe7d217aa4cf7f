import { constants } from 'node:os';
import type { ExitInfo } from './types.js';

const SIGNAL_NAMES = new Map<number, string>(Object.entries(constants.signals).map(([name, num]) => [num, name]));

/** Turns what the OS reported into `ExitInfo`: a signal death reports 128 + its number, as shells do. */
export function toExitInfo(code: number | null, signal: number | string | null | undefined): ExitInfo {
  const signum = typeof signal === 'string' ? constants.signals[signal as NodeJS.Signals] : signal;
  if (signum !== undefined && signum !== null && signum > 0) {
    // A real-time signal has no name in os.constants: its number stands for it.
    const name = typeof signal === 'string' ? signal : (SIGNAL_NAMES.get(signum) ?? `SIG${signum}`);
    return { exitCode: 128 + signum, signal: name };
  }
  return { exitCode: code ?? 0 };
}
