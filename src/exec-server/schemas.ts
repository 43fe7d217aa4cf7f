/** The params of every method we implement, checked in the real server's words (see params.ts). */

import { decodeBase64Strict } from './base64.js';
import { anything, array, boolean, count, optional, record, string, struct, variant, type Check } from './params.js';
import { fileUriToPath } from './protocol.js';
import { invalidParams } from './rpc-error.js';

/** A file:// URI, read as the path it names. */
const fileUri: Check<string> = (value) => {
  const uri = string(value);
  try {
    return fileUriToPath(uri);
  } catch (error) {
    throw invalidParams((error as Error).message);
  }
};

/** base64 bytes, strictly decoded. */
const base64: Check<Buffer> = (value) => {
  const text = string(value);
  try {
    return decodeBase64Strict(text);
  } catch (error) {
    throw invalidParams((error as Error).message);
  }
};

const sandbox = optional(anything);

export const initializeParams = struct('InitializeParams', {
  clientName: string,
  resumeSessionId: optional(string),
  unifiedExec: optional(struct('UnifiedExecParams', { inputWait: optional(boolean) })),
});

const envPolicy = struct('ExecEnvPolicy', {
  inherit: variant('core', 'all', 'none'),
  ignoreDefaultExcludes: boolean,
  exclude: array(string),
  set: record(string),
  includeOnly: array(string),
});

export const startParams = struct('WireExecParams', {
  processId: string,
  argv: array(string),
  cwd: fileUri,
  envPolicy: optional(envPolicy),
  env: record(string),
  tty: boolean,
  pipeStdin: optional(boolean),
  arg0: optional(string),
  sandbox,
  enforceManagedNetwork: optional(boolean),
  managedNetwork: optional(anything),
  metadata: optional(anything),
  cols: optional(count),
  rows: optional(count),
});
export type StartParams = ReturnType<typeof startParams>;

export const readParams = struct('ReadParams', {
  processId: string,
  afterSeq: optional(count),
  maxBytes: optional(count),
  waitMs: optional(count),
});

export const writeParams = struct('WriteParams', { processId: string, chunk: base64, writeId: string });
export const signalParams = struct('SignalParams', { processId: string, signal: variant('interrupt') });
export const terminateParams = struct('TerminateParams', { processId: string });
export const resizeParams = struct('ResizeParams', { processId: string, cols: count, rows: count });

export const fsPathParams = struct('FsPathParams', { path: fileUri, sandbox });
export const fsWriteFileParams = struct('FsWriteFileParams', { path: fileUri, dataBase64: string, sandbox });
export const fsCreateDirectoryParams = struct('FsCreateDirectoryParams', {
  path: fileUri,
  recursive: optional(boolean),
  sandbox,
});
export const fsRemoveParams = struct('FsRemoveParams', {
  path: fileUri,
  recursive: optional(boolean),
  force: optional(boolean),
  sandbox,
});
export const fsCopyParams = struct('FsCopyParams', {
  sourcePath: fileUri,
  destinationPath: fileUri,
  recursive: boolean,
  sandbox,
});
