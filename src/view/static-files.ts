import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEW_PATH } from './constants.js';
import { COMMON_HEADERS, ViewHttpError } from './http-io.js';

/**
 * The page's files: ours from the package's top-level view/ folder (plain browser JS, no build step; tsc does not
 * copy non-TS files, so they live outside src/), and xterm.js's browser build from the @xterm/xterm package. Only
 * these are served, so no path a request names can reach any other file. None holds a secret: they are served
 * without the token.
 */
const PAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../view');

/** The package the page draws terminals with: optional, so a package user who never opens the view skips it. */
const XTERM_PACKAGE = '@xterm/xterm';

/** Where @xterm/xterm is installed, or why the live view cannot draw terminals without it. */
export function findXterm(): { dir: string } | { problem: string } {
  try {
    return { dir: dirname(createRequire(import.meta.url).resolve(`${XTERM_PACKAGE}/package.json`)) };
  } catch {
    return {
      problem: `the live view draws terminals with ${XTERM_PACKAGE}, which is not installed: npm install ${XTERM_PACKAGE}@6 beside unified-exec (or start serve with --no-view)`,
    };
  }
}

/** A file of @xterm/xterm's; throws the 503 that says what to install when it is missing. */
const xtermFile = (path: string) => () => {
  const found = findXterm();
  if ('problem' in found) throw new ViewHttpError(503, 'VIEW_UNAVAILABLE', found.problem);
  return join(found.dir, path);
};

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

const page = (name: string) => () => join(PAGE_DIR, name);
const FILES = new Map<string, { file: () => string; type: string }>([
  [VIEW_PATH, { file: page('index.html'), type: HTML }],
  [`${VIEW_PATH}/`, { file: page('index.html'), type: HTML }],
  [`${VIEW_PATH}/view.js`, { file: page('view.js'), type: JS }],
  [`${VIEW_PATH}/view.css`, { file: page('view.css'), type: CSS }],
  [`${VIEW_PATH}/xterm.js`, { file: xtermFile('lib/xterm.js'), type: JS }],
  [`${VIEW_PATH}/xterm.css`, { file: xtermFile('css/xterm.css'), type: CSS }],
]);

/**
 * Scripts and styles from this origin only, requests to this origin only, never in a frame. Inline styles stay
 * allowed: xterm.js sizes its rows with a <style> element it writes.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function isStaticPath(pathname: string): boolean {
  return FILES.has(pathname);
}

export async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const entry = FILES.get(pathname);
  if (entry === undefined) throw new ViewHttpError(404, 'NOT_FOUND', `Not found: ${pathname}`);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new ViewHttpError(405, 'METHOD_NOT_ALLOWED', `${pathname} takes GET`, { allow: 'GET, HEAD' });
  }
  // Read on each request: a few small files, and an edited page shows without a restart.
  const body = await readFile(entry.file());
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': entry.type,
    'content-length': String(body.length),
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
