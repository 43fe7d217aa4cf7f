/** Where `serve` listens unless told otherwise: this machine only, on a fixed port clients can be configured with. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 8765;
export const MCP_PATH = '/mcp';
/** A client with no request for this long is ended with its processes: clients vanish without a DELETE. */
export const DEFAULT_CLIENT_IDLE_TIMEOUT_MS = 30 * 60 * 1000;
