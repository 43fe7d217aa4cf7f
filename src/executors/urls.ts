/**
 * Where a session can run, named by a URL: `local` (this machine), `ws://HOST:PORT` (an exec-server: ours or
 * Codex's), `docker://CONTAINER` (exec in a running container) or `docker-image://IMAGE` (a container made from
 * the image for each client). Pure parsing: making the executor is registry.ts's job.
 */

export type ExecutorUrl =
  | { kind: 'local' }
  | { kind: 'exec-server'; url: string; tokenFile?: string }
  | { kind: 'docker'; container: string; socketPath?: string }
  | { kind: 'docker-image'; image: string; socketPath?: string };

const EXECUTOR_URL_FORMS = 'local, ws://HOST:PORT, docker://CONTAINER or docker-image://IMAGE';

/** An executor's name: what `exec_command`'s `executor` argument and `list_sessions` say. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot name an executor, or undefined when it can. */
export function executorNameProblem(name: string): string | undefined {
  return NAME.test(name)
    ? undefined
    : `executor name ${JSON.stringify(name)} must be 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit`;
}

/** Parses an executor URL; throws an Error saying what is wrong and what the forms are. */
export function parseExecutorUrl(text: string): ExecutorUrl {
  if (text === 'local') return { kind: 'local' };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'docker' || scheme === 'docker-image') return parseDocker(text, scheme);
  if (scheme !== 'ws' && scheme !== 'wss') {
    throw new Error(
      scheme === undefined
        ? `executor URL ${JSON.stringify(text)} is not a URL; use ${EXECUTOR_URL_FORMS}`
        : `executor URL ${JSON.stringify(text)} has an unknown scheme; use ${EXECUTOR_URL_FORMS}`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`executor URL ${JSON.stringify(text)} is not a URL; use ${EXECUTOR_URL_FORMS}`);
  }
  rejectUnknownParams(text, url.searchParams, 'token-file');
  const tokenFile = url.searchParams.get('token-file') ?? undefined;
  url.search = '';
  if (url.hostname === '') throw new Error(`executor URL ${JSON.stringify(text)} names no host`);
  return { kind: 'exec-server', url: url.toString().replace(/\/$/, ''), ...(tokenFile ? { tokenFile } : {}) };
}

/**
 * `docker://web-1`, `docker-image://debian:bookworm`, `docker-image://ghcr.io/org/app:1.2?socket=/run/x.sock`: an
 * image tag looks like a port to a URL parser, so everything between `//` and `?` is taken as written.
 */
function parseDocker(text: string, scheme: 'docker' | 'docker-image'): ExecutorUrl {
  const rest = text.slice(scheme.length + 3);
  const query = rest.indexOf('?');
  const target = decodeURIComponent(query < 0 ? rest : rest.slice(0, query));
  const params = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  rejectUnknownParams(text, params, 'socket');
  if (target === '' || /\s/.test(target)) {
    throw new Error(`executor URL ${JSON.stringify(text)} names no ${scheme === 'docker' ? 'container' : 'image'}`);
  }
  const socketPath = params.get('socket') ?? undefined;
  const socket = socketPath ? { socketPath } : {};
  return scheme === 'docker'
    ? { kind: 'docker', container: target, ...socket }
    : { kind: 'docker-image', image: target, ...socket };
}

function rejectUnknownParams(text: string, params: URLSearchParams, known: string): void {
  const unknown = [...params.keys()].filter((key) => key !== known);
  if (unknown.length > 0) {
    throw new Error(
      `executor URL ${JSON.stringify(text)} has an unknown parameter ${unknown.join(', ')}; ws:// takes token-file=PATH, docker:// and docker-image:// take socket=PATH`,
    );
  }
}
