import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The Web `Request` the SDK's HTTP transport takes, for a node request whose body was read already (the transport
 * gets it parsed, beside this). The URL's host is a placeholder: the Host header was checked before, and the
 * transport reads only the path, the method and the headers.
 */
export function webRequestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(new URL(req.url ?? '/', 'http://localhost'), { method: req.method ?? 'GET', headers });
}

/**
 * Writes the transport's `Response` to the node response: status and headers at once (an event stream's before its
 * first event, so the client knows it is open), then the body as it comes. When the connection closes first, the
 * body is cancelled, which tells the transport the stream is gone. Resolves once the body has ended either way.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  const body = response.body;
  if (body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // cancelled: the connection closed
  } finally {
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}

/** Resolves on 'drain', or when the response closes first (a reader gone never drains). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
