/** Where the live view lives on `serve`: the page at /view, its files under /view/, its JSON API under /view/api/. */
export const VIEW_PATH = '/view';
export const VIEW_API_PATH = `${VIEW_PATH}/api`;

/** Output is sent at most this often: a flood becomes a few large events, not thousands of tiny ones. */
export const STREAM_FLUSH_MS = 20;
/**
 * Output queued for a page that does not read it fast enough, past which its stream ends with `behind` and the page
 * starts over from the session's recent output: the server's memory stays bounded whatever a session prints.
 */
export const MAX_STREAM_BACKLOG_BYTES = 4 * 1024 * 1024;
/** A comment this often on an idle stream finds pages that went away and keeps proxies from cutting it. */
export const STREAM_KEEPALIVE_MS = 15_000;
/** The largest input request body: a person's paste, JSON-encoded. The manager's maxWriteBytes still applies. */
export const MAX_INPUT_BODY_BYTES = 1024 * 1024;
