import type { IncomingMessage, ServerResponse } from 'node:http';
import { UnifiedExecError, type UnifiedExecErrorCode } from '../manager/errors.js';

/** An answer other than 200 that a handler gives by throwing: status, a code for scripts, a message for people. */
export class ViewHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Sent with every answer of the view: nothing is cached, sniffed, framed (clickjacking) or sent on as a referrer. */
export const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

export function sendError(res: ServerResponse, error: ViewHttpError): void {
  sendJson(res, error.status, { error: { code: error.code, message: error.message } }, error.headers);
}

/** The HTTP status of a manager error met while serving a request of the view. */
const STATUS_OF: Record<UnifiedExecErrorCode, number> = {
  UNKNOWN_SESSION: 404,
  SHUT_DOWN: 404, // its client ended between the lookup and the call
  STDIN_CLOSED: 409,
  INVALID_ARGUMENT: 400,
  LIMIT_EXCEEDED: 413,
  SPAWN_FAILED: 500,
  NOT_APPROVED: 403,
  PATCH_REJECTED: 422,
  CANCELLED: 499, // the view never passes a signal; listed so every code has a status
};

/** A manager error as an HTTP answer; anything else is rethrown (the server answers 500 and logs it). */
export function fromManagerError(error: unknown): ViewHttpError {
  if (!(error instanceof UnifiedExecError)) throw error;
  return new ViewHttpError(STATUS_OF[error.code], error.code, error.message);
}

/** A request body of at most `maxBytes`, parsed as JSON. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new ViewHttpError(413, 'LIMIT_EXCEEDED', `Request body over ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ViewHttpError(400, 'INVALID_ARGUMENT', 'The body is not valid JSON');
  }
}
