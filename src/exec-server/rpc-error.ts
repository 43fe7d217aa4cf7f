import { constants } from 'node:os';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, NOT_FOUND, type SpawnFailureKind } from './protocol.js';

/** A JSON-RPC error to answer with: the code, the exact message, and the error's `data` when it has one. */
export class RpcError extends Error {
  override readonly name = 'RpcError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string) => new RpcError(INVALID_REQUEST, message);
export const invalidParams = (message: string) => new RpcError(INVALID_PARAMS, message);
export const internalError = (message: string) => new RpcError(INTERNAL_ERROR, message);
export const unknownProcess = (id: string) => invalidRequest(`unknown process id ${id}`);

/** strerror(3) texts for the errno values file and process calls meet; Rust prints them as `TEXT (os error N)`. */
const STRERROR: Record<string, string> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EEXIST: 'File exists',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EBUSY: 'Device or resource busy',
  EXDEV: 'Invalid cross-device link',
  EMFILE: 'Too many open files',
  ENOEXEC: 'Exec format error',
  E2BIG: 'Argument list too long',
};

/** A system error in the real server's words, e.g. `No such file or directory (os error 2)`. */
export function osErrorMessage(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const errno = code === undefined ? undefined : (constants.errno as Record<string, number>)[code];
  const text = code === undefined ? undefined : STRERROR[code];
  if (text !== undefined && errno !== undefined) return `${text} (os error ${errno})`;
  return (error as Error | undefined)?.message ?? String(error);
}

/** Rust's io::ErrorKind::PermissionDenied, which the real server's spawnPermissionDenied comes from, is both. */
const PERMISSION_DENIED = new Set(['EACCES', 'EPERM']);

/**
 * A failed `process/start`: -32603 with the system error's text, and `data.kind` saying what failed, as the real
 * server (0.171.0) tells them apart: a missing program or working directory, a program not allowed to run, anything
 * else.
 */
export function spawnError(error: unknown, message = osErrorMessage(error)): RpcError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const kind: SpawnFailureKind =
    code === 'ENOENT'
      ? 'spawnNotFound'
      : code !== undefined && PERMISSION_DENIED.has(code)
        ? 'spawnPermissionDenied'
        : 'spawnFailed';
  return new RpcError(INTERNAL_ERROR, message, { kind });
}

/** A file system error: a missing path is -32004 (NOT_FOUND), anything else -32603. */
export function fsError(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new RpcError(code === 'ENOENT' ? NOT_FOUND : INTERNAL_ERROR, osErrorMessage(error));
}
