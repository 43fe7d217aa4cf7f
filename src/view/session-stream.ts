import type { ServerResponse } from 'node:http';
import type { UnifiedExecManager } from '../manager/manager.js';
import type { SessionWatch } from '../manager/types.js';
import { MAX_STREAM_BACKLOG_BYTES, STREAM_FLUSH_MS, STREAM_KEEPALIVE_MS } from './constants.js';
import { COMMON_HEADERS, fromManagerError } from './http-io.js';

/**
 * One session's output as a `text/event-stream`, read by the page with fetch() (EventSource cannot send the
 * Authorization header). Events, each one line of JSON:
 * - `start` {recent, tty, cols, rows}: first; the session's latest output (up to 64 KiB) and its terminal's size;
 * - `output` {text}: what it printed since, joined over STREAM_FLUSH_MS;
 * - `end` {exit_code}: it stopped running (exited, or was closed); the stream ends;
 * - `behind` {}: the page read too slowly; the stream ends, and the page starts over with a new one.
 * Nothing is taken from the model: its next reply still has all of it.
 */
export function streamSession(
  manager: Pick<UnifiedExecManager, 'watchSession'>,
  sessionId: number,
  res: ServerResponse,
): void {
  let pending = '';
  let flushTimer: NodeJS.Timeout | undefined;
  let keepAlive: NodeJS.Timeout | undefined = undefined; // set once the stream is open
  let watch: SessionWatch | undefined;
  let finished = false;
  const stop = () => {
    finished = true;
    clearTimeout(flushTimer);
    clearInterval(keepAlive);
    watch?.dispose();
  };
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const finish = (event: 'end' | 'behind', data: unknown) => {
    if (finished) return;
    stop();
    if (event === 'end' && pending !== '') send('output', { text: pending });
    pending = '';
    send(event, data);
    res.end();
  };
  const flush = () => {
    flushTimer = undefined;
    if (finished || pending === '') return;
    send('output', { text: pending });
    pending = '';
  };

  try {
    watch = manager.watchSession(sessionId, {
      output(text) {
        if (finished) return;
        // Counted in UTF-16 units, near enough for a bound on memory.
        if (res.writableLength + pending.length + text.length > MAX_STREAM_BACKLOG_BYTES) return finish('behind', {});
        pending += text;
        flushTimer ??= setTimeout(flush, STREAM_FLUSH_MS);
      },
      ended: (exitCode) => finish('end', { exit_code: exitCode ?? null }),
    });
  } catch (error) {
    throw fromManagerError(error);
  }
  // Comment lines: ignored by the page, but a write to a page that went away fails and ends the stream.
  keepAlive = setInterval(() => res.write(': keep-alive\n\n'), STREAM_KEEPALIVE_MS);
  res.once('close', stop);
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    // Proxies (nginx) would otherwise hold the events back.
    'x-accel-buffering': 'no',
  });
  send('start', { recent: watch.recent, tty: watch.tty, cols: watch.cols, rows: watch.rows });
}
