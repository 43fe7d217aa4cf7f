import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeValue } from '../manager/errors.js';
import type { UnifiedExecManager } from '../manager/manager.js';
import type { ClientRegistry } from '../mcp/client-registry.js';
import type { HttpRoutes } from '../mcp/http-routes.js';
import { parseApiPath } from './api-path.js';
import { MAX_INPUT_BODY_BYTES, VIEW_PATH } from './constants.js';
import { fromManagerError, readJsonBody, sendError, sendJson, ViewHttpError } from './http-io.js';
import { listSessions } from './session-list.js';
import { streamSession } from './session-stream.js';
import { isStaticPath, serveStatic } from './static-files.js';

export interface ViewOptions {
  /** Lets the page type into tty sessions (serve --view-input). Off: it watches and closes them only. */
  input?: boolean;
  /** Where a line goes when the page closes a session. */
  log?: (line: string) => void;
}

/**
 * The live view on an HTTP server: a page listing every client's exec sessions, each watchable and closable.
 * The API needs the server's token like /mcp; the page's files do not (see HttpRoutes.isPublic): the page is opened
 * as /view#token=..., and its script sends the token from the fragment (which never reaches a server) as a header.
 */
export function viewRoutes(clients: ClientRegistry, options: ViewOptions = {}): HttpRoutes {
  const input = options.input ?? false;
  const log = options.log ?? (() => undefined);

  function managerOf(clientId: string): UnifiedExecManager {
    const manager = clients.managerOf(clientId);
    if (manager === undefined) throw new ViewHttpError(404, 'UNKNOWN_CLIENT', `No client ${clientId}: it has ended`);
    return manager;
  }

  async function api(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const target = parseApiPath(pathname);
    switch (target.kind) {
      case 'unknown':
        throw new ViewHttpError(404, 'NOT_FOUND', `Not found: ${pathname}`);
      case 'sessions':
        allow(req, 'GET');
        return sendJson(res, 200, await listSessions(clients.listClients(), input));
    }
    const { clientId, sessionId, action } = target;
    switch (action) {
      case 'stream':
        allow(req, 'GET');
        return streamSession(managerOf(clientId), sessionId, res);
      case 'input': {
        allow(req, 'POST');
        if (!input) {
          throw new ViewHttpError(403, 'INPUT_OFF', 'Typing from the live view is off; start serve with --view-input');
        }
        const body = (await readJsonBody(req, MAX_INPUT_BODY_BYTES)) as { chars?: unknown } | null;
        const chars = body?.chars;
        if (typeof chars !== 'string') {
          throw new ViewHttpError(
            400,
            'INVALID_ARGUMENT',
            `Expected \`chars\` to be a string, got ${describeValue(chars)}`,
          );
        }
        await managerOf(clientId).sendInput(sessionId, chars).catch(rethrowAsHttp);
        return sendJson(res, 200, {});
      }
      case undefined: {
        allow(req, 'DELETE');
        const closed = await managerOf(clientId).closeSession(sessionId).catch(rethrowAsHttp);
        log(
          `live view: closed exec session ${sessionId} of client ${clientId} (exit code ${closed.exitCode ?? 'none'})`,
        );
        return sendJson(res, 200, { exit_code: closed.exitCode ?? null });
      }
    }
  }

  return {
    handles: (pathname) => pathname === VIEW_PATH || pathname.startsWith(`${VIEW_PATH}/`),
    isPublic: isStaticPath,
    async handle(req, res, url) {
      try {
        if (isStaticPath(url.pathname)) await serveStatic(req, res, url.pathname);
        else await api(req, res, url.pathname);
      } catch (error) {
        if (!(error instanceof ViewHttpError) || res.headersSent) throw error;
        sendError(res, error);
      }
    },
  };
}

function allow(req: IncomingMessage, method: string): void {
  if (req.method !== method) {
    throw new ViewHttpError(405, 'METHOD_NOT_ALLOWED', `This path takes ${method}`, { allow: method });
  }
}

function rethrowAsHttp(error: unknown): never {
  throw fromManagerError(error);
}
