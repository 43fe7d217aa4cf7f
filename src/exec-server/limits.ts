/** The exec-server's defaults and limits, with their units; each is a constructor option of ExecServer. */

/** How long a session whose connection dropped stays resumable before its processes are killed (Codex: ~80 s). */
export const SESSION_GRACE_MS = 80_000;
/** How long a closed process stays readable, its id taken (Codex: ~80 s). */
export const RETENTION_MS = 80_000;
/** Output kept per process for `process/read`: the newest whole chunks within this (Codex: 1 MiB). */
export const RETAINED_OUTPUT_BYTES = 1024 * 1024;
/** Chunks kept per process at most, however small (a program printing a byte at a time). */
export const RETAINED_OUTPUT_CHUNKS = 16_384;
/** Output is cut into chunks of at most this many bytes (Codex's pipe chunks are at most 8 KiB). */
export const MAX_CHUNK_BYTES = 8192;
/** How long a failed sandboxed process's exit waits for the rest of its output, to tell a denial from it. */
export const SANDBOX_OUTPUT_WAIT_MS = 1000;
/** Processes not yet closed, per exec-server session. */
export const MAX_PROCESSES_PER_SESSION = 256;
/** Processes not yet closed, across the server. */
export const MAX_PROCESSES = 1024;
/** Closed processes kept readable per session; past it the oldest is forgotten early, its id freed. */
export const MAX_RETAINED_PER_SESSION = 1024;
/** Exec-server sessions, attached and detached; past it the longest-detached one is ended, else new ones refused. */
export const MAX_SESSIONS = 64;
/** `writeId`s remembered per process for deduplication (the most recent ones). */
export const REMEMBERED_WRITE_IDS = 4096;
/** Input queued for a program that does not read it; a write past this fails. */
export const MAX_PENDING_INPUT_BYTES = 16 * 1024 * 1024;
/** Largest `cols` or `rows` accepted for a terminal. */
export const MAX_TERMINAL_DIMENSION = 10_000;
