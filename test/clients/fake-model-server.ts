// The part both fake model servers share: a loopback HTTP server that reads JSON bodies (compressed or not) and
// keeps every request for a failing test to show.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

interface ModelRequest {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown> | undefined;
}

export type Handler = (request: ModelRequest, res: ServerResponse) => void;

export interface FakeModelServer {
  readonly url: string;
  readonly requests: ModelRequest[];
  close(): Promise<void>;
}

function decode(raw: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return gunzipSync(raw);
  if (encoding === 'br') return brotliDecompressSync(raw);
  if (encoding === 'deflate') return inflateSync(raw);
  if (encoding === undefined || encoding === 'identity') return raw;
  throw new Error(`fake model server cannot read content-encoding ${encoding}`);
}

async function readRequest(req: IncomingMessage): Promise<ModelRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = decode(Buffer.concat(chunks), req.headers['content-encoding']).toString('utf8');
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  return { method: req.method ?? '', path: (req.url ?? '').split('?')[0] ?? '', body };
}

/** Starts `handle` on 127.0.0.1 on a free port. */
export function startFakeModelServer(handle: Handler): Promise<FakeModelServer> {
  const requests: ModelRequest[] = [];
  const server = createServer((req, res) => {
    readRequest(req).then(
      (request) => {
        requests.push(request);
        handle(request, res);
      },
      (error: Error) => {
        res.writeHead(400).end(error.message);
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('fake model server has no address'));
      resolve({
        url: `http://127.0.0.1:${address.port}`,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Writes a server-sent event stream of `events` (each with its `type` as the event name) and ends it. */
export function sendEvents(res: ServerResponse, events: readonly { type: string }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''));
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
