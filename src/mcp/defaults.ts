/** Where `serve` listens unless told otherwise: this machine only, on a fixed port clients can be configured with. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 8765;
export const MCP_PATH = '/mcp';
/** A client with no request for this long is ended with its processes: clients vanish without a DELETE. */
export const DEFAULT_CLIENT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
/**
 * A client that held its event stream open and then closed every connection is ended after this long without a new
 * request: its process has gone without a DELETE (`claude -p` exits so). Long enough for a dropped connection or a
 * restarted stream to come back (the SDK client retries after 1 s).
 */
export const DEFAULT_CLIENT_DISCONNECT_GRACE_MS = 30_000;
/** MCP client sessions one HTTP server holds; at the cap the least recently active idle one makes room. */
export const DEFAULT_MAX_CLIENTS = 64;
/** What a client refused at the cap is told to wait before it tries again. */
export const CLIENT_CAP_RETRY_AFTER_S = 10;
/** On shutdown, how long calls in flight get to write their final answer before they are answered with an error. */
export const SHUTDOWN_ANSWER_GRACE_MS = 2_000;
/** The shortest bearer token taken, in bytes: shorter ones can be guessed. */
export const MIN_TOKEN_BYTES = 16;
