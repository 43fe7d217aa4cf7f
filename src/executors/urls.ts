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

export const EXECUTOR_URL_FORMS = 'local, ws://HOST:PORT, docker://CONTAINER or docker-image://IMAGE';

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
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`executor URL ${JSON.stringify(text)} is not a URL; use ${EXECUTOR_URL_FORMS}`);
  }
  const socketPath = url.searchParams.get('socket') ?? undefined;
  const unknownParams = [...url.searchParams.keys()].filter(
    (key) => !(url.protocol === 'ws:' || url.protocol === 'wss:' ? ['token-file'] : ['socket']).includes(key),
  );
  if (unknownParams.length > 0) {
    throw new Error(
      `executor URL ${JSON.stringify(text)} has an unknown parameter ${unknownParams.join(', ')}; ws:// takes token-file=PATH, docker:// and docker-image:// take socket=PATH`,
    );
  }
  switch (url.protocol) {
    case 'ws:':
    case 'wss:': {
      const tokenFile = url.searchParams.get('token-file') ?? undefined;
      url.search = '';
      if (url.hostname === '') throw new Error(`executor URL ${JSON.stringify(text)} names no host`);
      return { kind: 'exec-server', url: url.toString().replace(/\/$/, ''), ...(tokenFile ? { tokenFile } : {}) };
    }
    case 'docker:':
    case 'docker-image:': {
      // docker://web-1 puts the name in the host part; docker-image://debian:bookworm has a port-like tag, and
      // registry images have slashes: take everything between `//` and `?` as it was written.
      const target = decodeURIComponent(text.slice(url.protocol.length + 2).replace(/\?.*$/, ''));
      if (target === '')
        throw new Error(
          `executor URL ${JSON.stringify(text)} names no ${url.protocol === 'docker:' ? 'container' : 'image'}`,
        );
      const socket = socketPath ? { socketPath } : {};
      return url.protocol === 'docker:'
        ? { kind: 'docker', container: target, ...socket }
        : { kind: 'docker-image', image: target, ...socket };
    }
    default:
      throw new Error(`executor URL ${JSON.stringify(text)} has an unknown scheme; use ${EXECUTOR_URL_FORMS}`);
  }
}
