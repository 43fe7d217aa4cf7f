import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { resolve } from 'node:path';
import { nodeCrypto } from '../util/lazy-crypto.js';
import { isLoopbackHost } from '../mcp/request-guard.js';
import { UsageError } from './usage-error.js';
import { MIN_TOKEN_BYTES } from '../mcp/defaults.js';
import { clientConfigFiles, hideFromSandboxes } from '../sandbox/secret-files.js';

/**
 * Whom a listening server (`serve`, `exec-server`) lets in. Loopback is no boundary between local users (any of
 * them can connect to 127.0.0.1), so, like Jupyter, it wants a bearer token by default and makes a random one. The
 * token never comes from a flag: the command line of every process is world-readable in /proc/<pid>/cmdline, its
 * environment is not.
 */

export { MIN_TOKEN_BYTES };
/** A generated token's randomness: 256 bits, printed as 43 base64url characters. */
const GENERATED_TOKEN_BYTES = 32;
/** Any of these permission bits lets group or others read or replace the token. */
const SHARED_MODE_BITS = 0o077;

export type TokenAuth =
  | { from: 'none' }
  | { from: 'generated'; token: string }
  | { from: 'env'; token: string }
  /** `path` absolute, so the printed connect lines can read the file from any directory. */
  | { from: 'file'; token: string; path: string };

/** A token file's permission bits (st_mode), owner (st_uid) and text, all taken from one open file. */
export interface TokenFile {
  mode: number;
  uid: number;
  text: string;
}

export interface AuthSources {
  readTokenFile?: (path: string) => TokenFile;
  /** The server's user (default: this process's effective uid), who alone besides root may own a token file. */
  ownUid?: number;
  generateToken?: () => string;
}

export interface AuthSettings {
  /** The address listened on: only a loopback one may go without a token. */
  host: string;
  noAuth: boolean;
  tokenFile?: string | undefined;
}

/** Which server asks: its command's name, for messages, and the variable its token may come from. */
export interface AuthCommand {
  command: string;
  tokenEnv: string;
}

/** `--token-file`, else the command's variable, else a random token; none with --no-auth (loopback only). */
export function resolveTokenAuth(
  settings: AuthSettings,
  env: Record<string, string | undefined>,
  { command, tokenEnv }: AuthCommand,
  sources: AuthSources = {},
): TokenAuth {
  if (settings.noAuth) {
    if (settings.tokenFile !== undefined) {
      throw new UsageError('--no-auth and --token-file contradict each other: give one of them');
    }
    if (!isLoopbackHost(settings.host)) {
      throw new UsageError(
        `Refusing to listen on ${settings.host} without a token: --no-auth is for loopback addresses only (127.0.0.1, ::1, localhost). Drop --no-auth and clients send the token ${command} prints.`,
      );
    }
    // An exported token variable (set for a client, say) does not outvote the flag.
    return { from: 'none' };
  }
  if (settings.tokenFile !== undefined) {
    const path = resolve(settings.tokenFile);
    const source = `--token-file ${settings.tokenFile}`;
    const file = readTokenFileOrSay(source, path, sources.readTokenFile ?? readTokenFile);
    // Mode 600 keeps the token from others only when the owner is the server's user: an owner may read the file,
    // replace its text and change its mode. Root may own it too: root can read every file anyway.
    const ownUid = sources.ownUid ?? process.geteuid?.();
    if (file.uid !== ownUid && file.uid !== 0) {
      const owners = ownUid === 0 || ownUid === undefined ? 'root' : `you (${userOf(ownUid)}) or root`;
      throw new UsageError(
        `${source}: it belongs to ${userOf(file.uid)}, who can read or replace the token; it must belong to ${owners}: run chown ${ownUid ?? 0} ${settings.tokenFile}`,
      );
    }
    if ((file.mode & SHARED_MODE_BITS) !== 0) {
      throw new UsageError(
        `${source}: group or others may access it (mode ${(file.mode & 0o777).toString(8)}); run: chmod 600 ${settings.tokenFile}`,
      );
    }
    // `echo TOKEN > FILE` adds a line end.
    return { from: 'file', token: checkToken(source, file.text.trim()), path };
  }
  const fromEnv = env[tokenEnv];
  if (fromEnv !== undefined) return { from: 'env', token: checkToken(tokenEnv, fromEnv) };
  const generated = (sources.generateToken ?? generateToken)();
  return { from: 'generated', token: checkToken('the generated token', generated) };
}

function generateToken(): string {
  return nodeCrypto().randomBytes(GENERATED_TOKEN_BYTES).toString('base64url');
}

/** fstat on the descriptor that is read: the mode checked is the mode of the text used. */
function readTokenFile(path: string): TokenFile {
  const fd = openSync(path, 'r');
  try {
    const { mode, uid } = fstatSync(fd);
    return { mode, uid, text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

function readTokenFileOrSay(source: string, path: string, read: (path: string) => TokenFile): TokenFile {
  try {
    return read(path);
  } catch (error) {
    throw new UsageError(`${source}: cannot read it: ${(error as Error).message}`);
  }
}

/** Never repeats the token in a message: a mistyped secret is still mostly the secret. */
function checkToken(source: string, token: string): string {
  const bytes = Buffer.byteLength(token);
  if (bytes < MIN_TOKEN_BYTES) {
    throw new UsageError(
      `${source}: a token needs at least ${MIN_TOKEN_BYTES} bytes, got ${bytes}; make one with: head -c 32 /dev/urandom | base64`,
    );
  }
  // It travels as `Authorization: Bearer TOKEN` and is printed into shell lines: no spaces, no control characters.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(
      `${source}: a token is printable ASCII without spaces (it travels in an HTTP header); make one with: head -c 32 /dev/urandom | base64`,
    );
  }
  return token;
}

/**
 * Keeps every file that may hold a token of this server or another out of this server's sandboxes: its --token-file
 * (`auth`, when it has one), and the clients' configs that may store tokens (`workspace`: where a project's .mcp.json
 * would be). Every server mode hides the configs, with a token or not: they hold other servers' tokens too. An
 * executor's token file is hidden where it is read (src/executors/registry.ts).
 */
export function hideTokenFiles(auth: TokenAuth | undefined, workspace: string): void {
  const configs = clientConfigFiles(homedir(), process.env.CODEX_HOME, resolve(workspace));
  hideFromSandboxes([...(auth?.from === 'file' ? [auth.path] : []), ...configs]);
}

/** What a server started with --no-auth says on stderr. */
export function noAuthWarning(): string {
  return `WARNING: --no-auth: any local user, and any program run by one, can connect and run commands as ${userName()}`;
}

/** `uid N (name)`, or `uid N` where the name cannot be looked up. */
function userOf(uid: number): string {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.split(':')[2] === String(uid));
    const name = line?.split(':')[0];
    return name ? `uid ${uid} (${name})` : `uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

function userName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}
