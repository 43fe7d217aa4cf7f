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
/** Spawns in flight at once; each blocks the event loop for a few ms, so a burst is spread over loop turns. */
export const DEFAULT_MAX_CONCURRENT_SPAWNS = 4;
/** Output held across all sessions before new sessions are refused (64 sessions x 1 MiB). */
export const DEFAULT_MAX_TOTAL_BUFFERED_BYTES = 64 * 1024 * 1024;
/** Largest `chars` one write_stdin may carry. */
export const DEFAULT_MAX_WRITE_BYTES = 1024 * 1024;
/** A terminal in canonical mode keeps at most this many bytes of one input line (Linux N_TTY). */
export const CANONICAL_LINE_MAX_BYTES = 4095;

/**
 * The most output tokens a tool reply holds, whatever max_output_tokens the model asked for: Codex clamps the model's
 * request to its tool output limit (10000 tokens by default), so a model trained on it reads no more here. It also
 * keeps a reply (text and, when asked for, structured; JSON-escaped) far below the 10 MiB message limit of MCP clients.
 */
export const MAX_TOOL_OUTPUT_TOKENS = 10_000;
/** The output budget Codex gives its shell tool (the model's truncation policy: 10000 tokens of about 4 bytes). */
export const SHELL_OUTPUT_MAX_TOKENS = 10_000;
/** As Codex's one-shot exec: the default time limit, and the exit code of a timeout. */
export const DEFAULT_EXEC_TIMEOUT_MS = 10_000;
export const TIMEOUT_EXIT_CODE = 124;

/** The most `onOutput` deltas one call sends (Codex's MAX_EXEC_OUTPUT_DELTAS_PER_CALL); the reply has the rest. */
export const MAX_OUTPUT_DELTAS = 10_000;

/** The widest and tallest terminal a session may ask for: a screen of 500 x 500 cells takes a few MiB to emulate. */
export const MAX_TERMINAL_SIDE = 500;

/** How long the live view's state column watches a session for input-wait before calling it running. */
export const STATE_PROBE_MS = 100;
/** How long a person's typing (the live view) waits for the program to take it; the rest stays queued. */
export const SEND_INPUT_WAIT_MS = 1000;
/** A reply's drained text past which its later steps each take an event-loop turn of their own (see collect). */
export const LARGE_REPLY_CHARS = 64 * 1024;
