/** Every tunable number of the manager, with its unit in its name. */
export const MIN_YIELD_TIME_MS = 250;
export const MAX_YIELD_TIME_MS = 30_000;
export const MIN_EMPTY_POLL_YIELD_MS = 5_000;
export const DEFAULT_MAX_BACKGROUND_POLL_MS = 300_000;
export const DEFAULT_EXEC_YIELD_TIME_MS = 10_000;
export const DEFAULT_WRITE_YIELD_TIME_MS = 250;
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
export const DEFAULT_MAX_SESSIONS = 64;
export const SESSION_WARNING_THRESHOLD = 60;
/** The most recently used sessions that pruning never picks. */
export const PRUNE_PROTECTED_RECENT = 8;
