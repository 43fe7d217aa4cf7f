/**
 * What the Docker executor tells people and models when a container is not there: pure functions of what the
 * engine answered, tested with plain data.
 */

/** An error from dockerode: an HTTP status from the engine, or a socket error code when it could not be reached. */
interface EngineError {
  statusCode?: number;
  code?: string;
  message?: string;
  /** dockerode puts the engine's JSON answer here; its `message` is the readable part. */
  json?: unknown;
}

/** The engine's own sentence, without dockerode's `(HTTP code 404) no such container - ` prefix. */
export function engineReason(err: unknown): string {
  const e = err as EngineError;
  const json = e.json as { message?: unknown } | undefined;
  if (json && typeof json.message === 'string') return json.message.trim();
  const text = String(e.message ?? err).trim();
  return text.replace(/^\(HTTP code \d+\)[^-]*- /, '').trim() || text;
}

/** True when the engine itself could not be reached (no socket, connection refused or reset). */
export function isUnreachable(err: unknown): boolean {
  const e = err as EngineError;
  return e.statusCode === undefined && typeof e.code === 'string';
}

/** True when the engine says the container is not there (404; Podman answers 500 while it is being removed). */
export function isNoSuchContainer(err: unknown): boolean {
  return (err as EngineError).statusCode === 404 || /no such container/i.test(engineReason(err));
}

/** Why an exec could not be created in `container` (a spawn that rejects). */
export function execCreateFailure(err: unknown, container: string, engine: string): string {
  const e = err as EngineError;
  if (isUnreachable(err)) return `${engine} could not be reached (${e.code}): check that it runs and the socket path`;
  if (isNoSuchContainer(err)) {
    return `container ${container} was not found on ${engine}: check its name or id (docker ps)`;
  }
  if (e.statusCode === 409 || /not running|state improper|paused/i.test(engineReason(err))) {
    return `container ${container} is not running (${engineReason(err)}): start it (docker start ${container})`;
  }
  return `could not start a command in container ${container}: ${engineReason(err)}`;
}

/** Why the container for `image` could not be made (a spawn that rejects). */
export function containerCreateFailure(err: unknown, image: string, engine: string): string {
  const e = err as EngineError;
  if (isUnreachable(err)) return `${engine} could not be reached (${e.code}): check that it runs and the socket path`;
  if (e.statusCode === 404 || /no such image|image not known/i.test(engineReason(err))) {
    return `image ${image} is not on ${engine}: check its name, or pull it first (docker pull ${image})`;
  }
  return `could not start a container from image ${image}: ${engineReason(err)}`;
}

/**
 * The runtime's own report that it could not start the program (runc, crun; through Podman or Docker), which comes
 * as the exec's output with exit code 125-127. Undefined when `output` is the program's own.
 */
export function runtimeStartFailure(output: string, container: string): string | undefined {
  const line = output.split(/\r?\n/).find((l) => /^Error: (runc|crun)|^OCI runtime|: exec failed: /.test(l.trim()));
  if (line === undefined) return undefined;
  const cwd = /chdir to cwd \("?([^")]*)"?\)|chdir `([^`]*)`/.exec(line);
  if (cwd) {
    const dir = cwd[1] ?? cwd[2] ?? '';
    return `the working directory ${dir} does not exist in container ${container} (or is not a directory): pass an existing \`workdir\``;
  }
  const program = /exec: "([^"]+)": ([^:]*: )?(executable file not found|no such file or directory)/.exec(line);
  if (program) {
    return `${program[1]} was not found in container ${container}: check that the image has it (a shell such as /bin/sh)`;
  }
  return `could not start the command in container ${container}: ${line.trim()}`;
}
