/**
 * The params of every method we implement, each written once: as its validator, which checks it in the real server's
 * words (see params.ts). The types are derived from the validators: what a client sends (`ProcessStartParams`, ...)
 * with Wire, what the server reads (`StartParams`) with Infer. Unknown fields are ignored; an optional field may be
 * absent or null. The shapes of results and notifications, which we only send, are in protocol.ts.
 */

import { decodeBase64Strict } from './base64.js';
import {
  anything,
  array,
  boolean,
  count,
  optional,
  record,
  string,
  struct,
  unchecked,
  variant,
  type Check,
  type Infer,
  type Wire,
} from './params.js';
import { fileUriToPath, type WireSandbox } from './protocol.js';
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
const base64: Check<Buffer, string> = (value) => {
  const text = string(value);
  try {
    return decodeBase64Strict(text);
  } catch (error) {
    throw invalidParams((error as Error).message);
  }
};

/** Run in the sandbox this describes (null: unsandboxed); read by fromWireSandbox, not here. The fs methods ignore it. */
const sandbox = optional(unchecked<WireSandbox>());

// ---- Handshake ---------------------------------------------------------------------------------------------------

export const initializeParams = struct('InitializeParams', {
  /** Codex sends `codex-environment`. */
  clientName: string,
  /** Re-attach to a detached exec-server session instead of making a new one. */
  resumeSessionId: optional(string),
  /** Extension: what a unified-exec client asks for. */
  unifiedExec: optional(
    struct('UnifiedExecParams', {
      /** Send `process/inputWait` notifications on this connection. */
      inputWait: optional(boolean),
      /** Send `process/output` as binary frames (protocol.ts's OutputFrame), where the transport has them. */
      binaryOutput: optional(boolean),
    }),
  ),
});
/** `initialize` params. */
export type InitializeParams = Wire<typeof initializeParams>;

// ---- process/start -----------------------------------------------------------------------------------------------

const envPolicy = struct('ExecEnvPolicy', {
  inherit: variant('core', 'all', 'none'),
  /** true keeps the variables that look like credentials. */
  ignoreDefaultExcludes: boolean,
  /** Glob patterns of names to drop. */
  exclude: array(string),
  /** Set over the inherited variables (`env` is laid over these). */
  set: record(string),
  /** When non-empty, only names matching one of these survive. */
  includeOnly: array(string),
});
/** How `envPolicy` builds the environment from the server's own. */
export type ExecEnvPolicy = Wire<typeof envPolicy>;

export const startParams = struct('WireExecParams', {
  /** Client-chosen key, unique within the exec-server session (`""` is allowed). */
  processId: string,
  /** Non-empty; argv[0] without a slash is searched on the PATH of the child's environment. */
  argv: array(string),
  /** Working directory, a file:// URI. */
  cwd: fileUri,
  envPolicy: optional(envPolicy),
  /** The child's complete environment, or (with envPolicy) laid over the one the policy builds. */
  env: record(string),
  /** Pseudo-terminal (one `pty` stream) or pipes (`stdout` and `stderr`). */
  tty: boolean,
  /** Pipes only: keep stdin open for `process/write` (default: /dev/null). */
  pipeStdin: optional(boolean),
  /** What the program sees as argv[0]; argv[0] is still what is executed. */
  arg0: optional(string),
  sandbox,
  /** Sent by Codex; no effect here. */
  enforceManagedNetwork: optional(boolean),
  /** Sent by Codex; no effect here. */
  managedNetwork: optional(anything),
  /** Sent by Codex (`threadId`, `toolCallId`); no effect. */
  metadata: optional(anything),
  /** Extension: terminal width of a tty process (default 80). */
  cols: optional(count),
  /** Extension: terminal height of a tty process (default 24). */
  rows: optional(count),
});
/** `process/start` params, as a client sends them. */
export type ProcessStartParams = Wire<typeof startParams>;
/** `process/start` params as the server reads them: `cwd` a path. */
export type StartParams = Infer<typeof startParams>;

// ---- process/read, write, signal, terminate, resize --------------------------------------------------------------

export const readParams = struct('ReadParams', {
  processId: string,
  /** Only chunks with a greater seq (default 0). */
  afterSeq: optional(count),
  /** Decoded bytes to return at most, whole chunks, at least one (default unlimited). */
  maxBytes: optional(count),
  /** Long poll: wait up to this long for a newer chunk, the exit or the close (default 0). */
  waitMs: optional(count),
});
/** `process/read` params. */
export type ProcessReadParams = Wire<typeof readParams>;

export const writeParams = struct('WriteParams', {
  processId: string,
  /** base64; empty is accepted and does nothing (it does not close stdin). */
  chunk: base64,
  /** A writeId already used on this process is acknowledged and dropped. */
  writeId: string,
});
/** `process/write` params. */
export type ProcessWriteParams = Wire<typeof writeParams>;

/** `process/signal` params; result `{}`, also for unknown or finished processes. */
export const signalParams = struct('SignalParams', {
  processId: string,
  /** SIGINT to the process group; the only signal there is. */
  signal: variant('interrupt'),
});

export const terminateParams = struct('TerminateParams', { processId: string });
/** `process/terminate` params. */
export type ProcessTerminateParams = Wire<typeof terminateParams>;

export const resizeParams = struct('ResizeParams', { processId: string, cols: count, rows: count });
/** Extension `process/resize` params; result `{}`. */
export type ProcessResizeParams = Wire<typeof resizeParams>;

// ---- fs/*: file:// URIs ------------------------------------------------------------------------------------------

/** `fs/getMetadata`, `fs/readFile`, `fs/readDirectory` and `fs/canonicalize` params. */
export const fsPathParams = struct('FsPathParams', { path: fileUri, sandbox });

/** `fs/writeFile` params; result `{}`. */
export const fsWriteFileParams = struct('FsWriteFileParams', { path: fileUri, dataBase64: string, sandbox });

/** `fs/createDirectory` params; result `{}`. */
export const fsCreateDirectoryParams = struct('FsCreateDirectoryParams', {
  path: fileUri,
  recursive: optional(boolean),
  sandbox,
});

/** `fs/remove` params; result `{}`. */
export const fsRemoveParams = struct('FsRemoveParams', {
  path: fileUri,
  recursive: optional(boolean),
  /** A missing path is not an error. */
  force: optional(boolean),
  sandbox,
});

/** `fs/copy` params; result `{}`. */
export const fsCopyParams = struct('FsCopyParams', {
  sourcePath: fileUri,
  destinationPath: fileUri,
  /** Required true when sourcePath is a directory. */
  recursive: boolean,
  sandbox,
});
