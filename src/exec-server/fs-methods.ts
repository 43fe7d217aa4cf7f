/**
 * The `fs/*` methods: plain file system calls on this machine, answered in the real server's shapes and words
 * (EXEC-SERVER.md section 11). A missing path is -32004, any other failure -32603 with the OS's text. The optional
 * `sandbox` field is accepted and not enforced: these run as the server's user, like the processes it starts
 * without one.
 */

import { cp, lstat, mkdir, readdir, readFile, realpath, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { decodeBase64Strict } from './base64.js';
import {
  pathToFileUri,
  type EmptyResult,
  type FsCanonicalizeResult,
  type FsGetMetadataResult,
  type FsReadDirectoryResult,
  type FsReadFileResult,
} from './protocol.js';
import { fsError, invalidRequest } from './rpc-error.js';

/** Runs `fn`, turning a thrown system error into the RpcError the real server would answer. */
async function fsCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fsError(error);
  }
}

const ms = (value: number) => Math.max(0, Math.floor(value));

export function getMetadata({ path }: { path: string }): Promise<FsGetMetadataResult> {
  return fsCall(async () => {
    const link = await lstat(path);
    // A symlink reports what it points to, and that it is one.
    const target: Stats = link.isSymbolicLink() ? await stat(path).catch(() => link) : link;
    return {
      isDirectory: target.isDirectory(),
      isFile: target.isFile(),
      isSymlink: link.isSymbolicLink(),
      size: target.size,
      createdAtMs: ms(target.birthtimeMs),
      modifiedAtMs: ms(target.mtimeMs),
    };
  });
}

export function readFileBase64({ path }: { path: string }): Promise<FsReadFileResult> {
  return fsCall(async () => {
    if ((await stat(path)).isDirectory()) throw invalidRequest(`path \`${path}\` is not a file`);
    return { dataBase64: (await readFile(path)).toString('base64') };
  });
}

export function writeFileBase64({ path, dataBase64 }: { path: string; dataBase64: string }): Promise<EmptyResult> {
  let data: Buffer;
  try {
    data = decodeBase64Strict(dataBase64);
  } catch (error) {
    return Promise.reject(invalidRequest(`fs/writeFile requires valid base64 dataBase64: ${(error as Error).message}`));
  }
  return fsCall(async () => {
    await writeFile(path, data);
    return {};
  });
}

export function createDirectory({ path, recursive }: { path: string; recursive?: boolean }): Promise<EmptyResult> {
  return fsCall(async () => {
    await mkdir(path, { recursive: recursive ?? true });
    return {};
  });
}

export function readDirectory({ path }: { path: string }): Promise<FsReadDirectoryResult> {
  return fsCall(async () => {
    const entries = await readdir(path, { withFileTypes: true });
    return {
      entries: entries.map((e) => ({ fileName: e.name, isDirectory: e.isDirectory(), isFile: e.isFile() })),
    };
  });
}

/** `recursive` and `force` default to true, as on the real server. */
export function remove(params: { path: string; recursive?: boolean; force?: boolean }): Promise<EmptyResult> {
  const { path, recursive = true, force = true } = params;
  return fsCall(async () => {
    let info: Stats;
    try {
      info = await lstat(path);
    } catch (error) {
      if (force && (error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    // Without recursive a directory goes only when empty (rmdir: `Directory not empty (os error 39)` otherwise).
    if (info.isDirectory() && !recursive) await rmdir(path);
    else await rm(path, { recursive, force });
    return {};
  });
}

export function copy(params: {
  sourcePath: string;
  destinationPath: string;
  recursive: boolean;
}): Promise<EmptyResult> {
  const { sourcePath, destinationPath, recursive } = params;
  return fsCall(async () => {
    if ((await lstat(sourcePath)).isDirectory() && !recursive) {
      throw invalidRequest('fs/copy requires recursive: true when sourcePath is a directory');
    }
    await cp(sourcePath, destinationPath, { recursive, errorOnExist: false, force: true });
    return {};
  });
}

export function canonicalize({ path }: { path: string }): Promise<FsCanonicalizeResult> {
  return fsCall(async () => ({ path: pathToFileUri(await realpath(path)) }));
}
