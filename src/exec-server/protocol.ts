/**
 * The wire contract of Codex's `codex exec-server` (0.171.0, as observed: EXEC-SERVER.md in codex-reference describes
 * 0.169.0, and 0.171.0 answered its scripts the same but for `data.kind` on spawn failures and one more capability),
 * plus unified-exec's optional extensions, which a Codex client never sends and ignores when it receives them. Types,
 * constants and tiny pure helpers only: both our server and our client import this file. The params of each method
 * are not here: they are written once, as the validators in schemas.ts, which their types are derived from.
 *
 * Framing: one JSON-RPC message per WebSocket frame (or per line on stdio). Messages from the server carry no
 * `"jsonrpc"` field; request ids are numbers or strings, echoed as sent. Byte payloads are standard base64, except
 * where a unified-exec client and server agreed on binary output frames (see OutputFrame).
 */

import { fileURLToPath, pathToFileURL } from 'node:url';

// ---- JSON-RPC envelope -------------------------------------------------------------------------------------------

/** A request id as the client sent it: the server echoes it unchanged (`-1` answers a message it could not parse). */
export type RequestId = number | string;

/** The `error` member of a failed response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Not initialized, unknown process or session id, duplicate process id, unparsable frame, over a limit. */
export const INVALID_REQUEST = -32600;
/** A method the server does not implement. */
export const METHOD_NOT_FOUND = -32601;
/** Bad params, serde-style (``missing field `tty` ``, `argv must not be empty`, `invalid URI: ...`). */
export const INVALID_PARAMS = -32602;
/** Spawn and I/O failures (`No such file or directory (os error 2)`, `failed to write to process stdin`). */
export const INTERNAL_ERROR = -32603;
/** What a failed `process/start`'s error says in `data.kind` (`{"kind":"spawnNotFound"}`). */
export type SpawnFailureKind = 'spawnNotFound' | 'spawnPermissionDenied' | 'spawnFailed';
/** A file system path (or file handle) that does not exist. */
export const NOT_FOUND = -32004;
/** `resumeSessionId` names a session attached to another live connection. */
export const SESSION_ATTACHED = -32010;

/** The id a response to an unparsable message carries. */
export const UNPARSABLE_MESSAGE_ID = -1;

/**
 * Largest exec-server message the real server takes (a bigger WebSocket frame closes the connection); our stdio
 * transport refuses a longer line. Not the MCP stdio limit (MCP_MAX_MESSAGE_BYTES).
 */
export const EXEC_SERVER_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

// ---- Method names ------------------------------------------------------------------------------------------------

/** Requests and notifications, by wire name. */
export const METHODS = {
  initialize: 'initialize',
  initialized: 'initialized',
  processStart: 'process/start',
  processRead: 'process/read',
  processWrite: 'process/write',
  processSignal: 'process/signal',
  processTerminate: 'process/terminate',
  /** Extension: resize a tty process's terminal. */
  processResize: 'process/resize',
  environmentInfo: 'environment/info',
  environmentStatus: 'environment/status',
  fsGetMetadata: 'fs/getMetadata',
  fsReadFile: 'fs/readFile',
  fsWriteFile: 'fs/writeFile',
  fsCreateDirectory: 'fs/createDirectory',
  fsReadDirectory: 'fs/readDirectory',
  fsRemove: 'fs/remove',
  fsCopy: 'fs/copy',
  fsCanonicalize: 'fs/canonicalize',
} as const;

/** Server → client notifications, by wire name. */
export const NOTIFICATIONS = {
  processOutput: 'process/output',
  processExited: 'process/exited',
  processClosed: 'process/closed',
  /** Extension: the tty process is blocked reading its terminal (only to clients that opted in). */
  processInputWait: 'process/inputWait',
} as const;

// ---- Handshake ---------------------------------------------------------------------------------------------------

/** `initialize` result. */
export interface InitializeResult {
  /** The exec-server session (a UUID): processes belong to it, not to the connection. */
  sessionId: string;
  environmentInfo: EnvironmentInfo;
  /** Extension: present when the server is unified-exec. */
  unifiedExec?: UnifiedExecServerInfo;
}

/** Extension: what a unified-exec server offers, in every `initialize` result. */
interface UnifiedExecServerInfo {
  /** The server's package version. */
  version: string;
  /** It sends `process/inputWait` to clients that ask. */
  inputWait: boolean;
  /** It implements `process/resize` and `cols`/`rows` on `process/start`. */
  resize: boolean;
  /** This connection's `process/output` comes as binary frames (OutputFrame): the client asked, and it is a WebSocket. */
  binaryOutput?: boolean;
}

/** The shell the environment uses. */
interface ShellInfo {
  /** `bash`, `zsh`, `sh`, ... */
  name: string;
  /** Executable path or command name (not a URI). */
  path: string;
}

/** `environment/info` result and `initialize`'s `environmentInfo`; only `shell` is required by Codex. */
export interface EnvironmentInfo {
  shell: ShellInfo;
  executorVersion?: string;
  providerId?: string;
  /** The server's working directory, a file:// URI. */
  cwd?: string;
  /** file:// URI. */
  userHomeDir?: string;
  platformOs?: string;
  /** file:// URIs. */
  prependPathDirs?: string[];
  /** file:// URIs ($TMPDIR when set). */
  temporaryDirectories?: string[];
  /** file:// URI. */
  tempDir?: string;
  /** Feature flags; Codex calls `fs/watchMissing` and `environmentConfig/read` only when they say so. */
  capabilities?: Record<string, boolean>;
}

// ---- process/start -----------------------------------------------------------------------------------------------

/** What runs the process's sandbox; the values Codex's client accepts. `linuxSeccomp`: the Linux sandbox. */
export type SandboxType = 'none' | 'macosSeatbelt' | 'linuxSeccomp' | 'windowsRestrictedToken';

/** `process/start` result. */
export interface ProcessStartResult {
  processId: string;
  sandboxType: SandboxType;
  /** Extension: the process leader's pid on the server's machine. */
  pid?: number;
}

// ---- Output, exit, close -----------------------------------------------------------------------------------------

/** Where a chunk came from: the pipes, or the terminal (stdout and stderr merged). */
export type OutputStream = 'stdout' | 'stderr' | 'pty';

/** `process/output` notification. `seq` is per process, shared with the exit and close events. */
export interface ProcessOutputNotification {
  processId: string;
  seq: number;
  stream: OutputStream;
  /** base64 of the raw bytes. */
  chunk: string;
}

/** `process/exited` notification; may come before the last output chunks. */
export interface ProcessExitedNotification {
  processId: string;
  seq: number;
  /** Pipes: 128 + signal when killed by one. Pty: 1 when killed by a signal (as Codex). */
  exitCode: number;
  /** The failure looks like the sandbox's doing. */
  sandboxDenied: boolean;
  /** Extension: the signal that killed it (`SIGKILL`), when one did. */
  signal?: string;
}

/** `process/closed` notification: exited and every output stream at EOF; the last event of a process. */
export interface ProcessClosedNotification {
  processId: string;
  seq: number;
}

/**
 * Extension `process/inputWait`, only to connections that asked at `initialize` and only for tty processes: the
 * program is blocked reading its terminal, and every output chunk with a seq below `seq` was sent before this.
 */
export interface ProcessInputWaitNotification {
  processId: string;
  /** The process's next unused seq (not consumed by this notification). */
  seq: number;
  /** How many non-empty `process/write` chunks had been written to the process when this was detected. */
  inputSeq: number;
  /** Canonical mode with echo off: a password prompt. */
  secretPrompt: boolean;
}

/**
 * Extension: `process/output` notifications as binary WebSocket frames, sent only on a connection whose client asked
 * for them at `initialize` and whose `initialize` result said `binaryOutput: true`. A chunk's bytes travel as they
 * are, not as base64 inside JSON, and the chunks of one read travel in one frame (see ClientConnection.output): a
 * flood costs a copy and a write per read, instead of an encoding, a parse, a decoding and a write per chunk.
 *
 *     byte 0      OUTPUT_FRAME_TAG (0: no JSON text starts with it, so a binary frame holding JSON is told apart)
 *     then, per chunk, in seq order:
 *       1 byte    the stream: 0 stdout, 1 stderr, 2 pty
 *       6 bytes   seq, unsigned big-endian
 *       2 bytes   the processId's length in UTF-8 bytes, unsigned big-endian
 *       4 bytes   the chunk's length, unsigned big-endian
 *       then      the processId (UTF-8), then the chunk's bytes
 */
export interface OutputFrame {
  processId: string;
  seq: number;
  stream: OutputStream;
  bytes: Buffer;
}

const OUTPUT_FRAME_TAG = 0;
const RECORD_HEADER_BYTES = 13;
const FRAME_STREAMS: readonly OutputStream[] = ['stdout', 'stderr', 'pty'];
/** The largest seq 48 bits hold. */
const MAX_FRAME_SEQ = 2 ** 48 - 1;
const MAX_FRAME_ID_BYTES = 0xffff;

/** Whether a chunk can go in a binary frame (else it goes as JSON): a processId over 64 KiB or a seq past 48 bits. */
export function fitsOutputFrame(chunk: OutputFrame): boolean {
  return chunk.seq <= MAX_FRAME_SEQ && Buffer.byteLength(chunk.processId) <= MAX_FRAME_ID_BYTES;
}

/** One binary frame holding `chunks` (each one that fitsOutputFrame), in their order. */
export function encodeOutputFrame(chunks: readonly OutputFrame[]): Buffer {
  let size = 1;
  for (const chunk of chunks) size += RECORD_HEADER_BYTES + Buffer.byteLength(chunk.processId) + chunk.bytes.length;
  const out = Buffer.allocUnsafe(size);
  out[0] = OUTPUT_FRAME_TAG;
  let at = 1;
  for (const { processId, seq, stream, bytes } of chunks) {
    const idBytes = out.write(processId, at + RECORD_HEADER_BYTES, 'utf8');
    out[at] = FRAME_STREAMS.indexOf(stream);
    out.writeUIntBE(seq, at + 1, 6);
    out.writeUInt16BE(idBytes, at + 7);
    out.writeUInt32BE(bytes.length, at + 9);
    at += RECORD_HEADER_BYTES + idBytes;
    at += bytes.copy(out, at);
  }
  return out;
}

/**
 * The output chunks a binary frame carries (their bytes views of `data`, not copies); undefined when `data` is not
 * an output frame: another binary message (JSON), or one cut short or naming a stream we do not know.
 */
export function decodeOutputFrame(data: Buffer): OutputFrame[] | undefined {
  if (data.length === 0 || data[0] !== OUTPUT_FRAME_TAG) return undefined;
  const chunks: OutputFrame[] = [];
  let at = 1;
  while (at < data.length) {
    if (at + RECORD_HEADER_BYTES > data.length) return undefined;
    const stream = FRAME_STREAMS[data[at]!];
    const idStart = at + RECORD_HEADER_BYTES;
    const bytesStart = idStart + data.readUInt16BE(at + 7);
    const end = bytesStart + data.readUInt32BE(at + 9);
    if (stream === undefined || end > data.length) return undefined;
    chunks.push({
      processId: data.toString('utf8', idStart, bytesStart),
      seq: data.readUIntBE(at + 1, 6),
      stream,
      bytes: data.subarray(bytesStart, end),
    });
    at = end;
  }
  return chunks.length > 0 ? chunks : undefined;
}

// ---- process/read ------------------------------------------------------------------------------------------------

/** One retained output chunk. */
interface ReadChunk {
  seq: number;
  stream: OutputStream;
  /** base64 of the raw bytes. */
  chunk: string;
}

/** `process/read` result. */
export interface ProcessReadResult {
  chunks: ReadChunk[];
  /** Cut by maxBytes: the last chunk's seq + 1; otherwise the process's next unused seq. */
  nextSeq: number;
  exited: boolean;
  exitCode: number | null;
  closed: boolean;
  failure: string | null;
  sandboxDenied: boolean;
  /** Extension: the signal that killed it, once exited by one. */
  signal?: string;
  /** Extension: the latest input-wait report is still current (no output and no write since). */
  waitingForInput?: boolean;
  /** Extension: with waitingForInput, the read is a password prompt. */
  secretPrompt?: boolean;
}

// ---- process/write -----------------------------------------------------------------------------------------------

/** How a write went: a result, not an error. */
export type WriteStatus = 'accepted' | 'unknownProcess' | 'stdinClosed' | 'starting';

/** `process/write` result. */
export interface ProcessWriteResult {
  status: WriteStatus;
}

// ---- process/signal, process/terminate, process/resize -----------------------------------------------------------

/** `process/terminate` result: answered at once; the exit follows as notifications. */
export interface ProcessTerminateResult {
  /** The process was still running. */
  running: boolean;
}

/** The `{}` result of signal and resize (and of the fs methods that return nothing). */
export type EmptyResult = Record<string, never>;

// ---- fs/* --------------------------------------------------------------------------------------------------------

/** `fs/getMetadata` result. */
export interface FsGetMetadataResult {
  isDirectory: boolean;
  isFile: boolean;
  isSymlink: boolean;
  size: number;
  createdAtMs: number;
  modifiedAtMs: number;
}

/** `fs/readFile` result. */
export interface FsReadFileResult {
  dataBase64: string;
}

/** One entry of `fs/readDirectory`. */
interface FsDirectoryEntry {
  fileName: string;
  isDirectory: boolean;
  isFile: boolean;
}

/** `fs/readDirectory` result. */
export interface FsReadDirectoryResult {
  entries: FsDirectoryEntry[];
}

/** `fs/canonicalize` result. */
export interface FsCanonicalizeResult {
  /** file:// URI. */
  path: string;
}

// ---- The sandbox object (EXEC-SERVER.md section 13) --------------------------------------------------------------

/** A path with a meaning the sandbox resolves itself. */
type WireSpecialPath =
  | { kind: 'root' }
  | { kind: 'minimal' }
  | { kind: 'project_roots'; subpath?: string | null }
  | { kind: 'tmpdir' }
  | { kind: 'slash_tmp' }
  | { kind: 'unknown'; path: string; subpath?: string | null };

/** What an entry names: a special path, an absolute path, or a glob. */
type WireFileSystemPath =
  | { type: 'special'; value: WireSpecialPath }
  | { type: 'path'; path: string }
  | { type: 'glob_pattern'; pattern: string };

/** One file system rule. */
export interface WireFileSystemEntry {
  path: WireFileSystemPath;
  access: 'read' | 'write' | 'deny' | 'none';
  /** `skip`: a missing path is not an error. */
  missing_path_behavior?: string;
}

/** The file system part of a sandbox. */
type WireFileSystemPolicy =
  { type: 'restricted'; entries: WireFileSystemEntry[] } | { type: 'unrestricted' } | { type: 'external-sandbox' };

/** What the sandbox allows. */
interface WirePermissions {
  type: 'managed' | 'disabled' | 'external';
  file_system?: WireFileSystemPolicy;
  network?: 'restricted' | 'enabled';
}

/** The `sandbox` field of `process/start` and the fs methods, as Codex 0.171.0 sends it (0.169.0's was the same). */
export interface WireSandbox {
  permissions: WirePermissions;
  /** file:// URI. */
  cwd: string;
  /** file:// URIs; `project_roots` entries mean these. */
  workspaceRoots: string[];
  windowsSandboxLevel?: string;
  windowsSandboxProxySettingsMode?: string;
  useLegacyLandlock?: boolean;
}

// ---- Helpers -----------------------------------------------------------------------------------------------------

/** An absolute path as a file:// URI (percent-encoded as needed). */
export function pathToFileUri(path: string): string {
  return pathToFileURL(path).href;
}

/**
 * A file:// URI as a path. Throws an Error whose message is the one the real server answers (-32602): a plain path
 * is `invalid URI: relative URL without a base`, another scheme ``unsupported path URI scheme `http` ``.
 */
export function fileUriToPath(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error('invalid URI: relative URL without a base');
  }
  if (url.protocol !== 'file:') throw new Error(`unsupported path URI scheme \`${url.protocol.slice(0, -1)}\``);
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new Error(`invalid URI: ${(error as Error).message}`);
  }
}
