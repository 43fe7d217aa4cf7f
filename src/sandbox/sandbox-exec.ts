import { accessSync, constants, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCrypto } from '../util/lazy-crypto.js';
import { PACKAGE_ROOT, findNativeFile, nativeFileHelp } from '../util/native-binary.js';
import { seccompProgram, supervisionProgram, type SeccompNetwork } from './seccomp.js';

const SANDBOX_EXEC_FILE = 'unified-exec-sandbox-exec';

/**
 * The environment variable naming another launcher to run instead (a path), for tests and development: the sanitizer
 * build of test/sandbox/landlock-sanitizers.test.ts (docs/development.md). Whoever sets the server's environment
 * chooses its programs anyway (PATH, NODE_OPTIONS); a sandboxed command cannot set it.
 */
const SANDBOX_EXEC_ENV = 'UNIFIED_EXEC_SANDBOX_EXEC';

/**
 * Our launcher (native/sandbox-exec.c): inside bubblewrap it installs the seccomp filter, then becomes the command;
 * as the Landlock backend it is the whole sandbox. The one SANDBOX_EXEC_ENV names, else a build made here (npm run
 * build:native), else the one prebuilt for this platform (statically linked: any libc), else where the build would
 * put it.
 */
export const SANDBOX_EXEC_PATH =
  process.env[SANDBOX_EXEC_ENV] ||
  (findNativeFile(SANDBOX_EXEC_FILE) ?? join(PACKAGE_ROOT, 'build/Release', SANDBOX_EXEC_FILE));

/** What to tell someone whose launcher is missing. */
export const SANDBOX_EXEC_HELP = nativeFileHelp(SANDBOX_EXEC_FILE);

/** `path` when the launcher was built there and can run, else undefined. */
export function findSandboxExec(path = SANDBOX_EXEC_PATH): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

const programs = new Map<SeccompNetwork, string>();
const programFor = (network: SeccompNetwork) => {
  let program = programs.get(network);
  if (program === undefined) programs.set(network, (program = seccompProgram(network).toString('base64')));
  return program;
};

/** The fd bubblewrap reads the sandbox-wide filter from (`--seccomp 10`): free in a freshly spawned process. */
export const SECCOMP_FD = 10;

/**
 * `bwrapArgv` (a bubblewrap command line that reads its filter from SECCOMP_FD) started through the launcher `exec`,
 * which puts the filter for `network` there: bubblewrap then installs it on every process of the sandbox. With
 * `readOnlyDevices` (a root server, whose sandbox owns the host's device nodes) the launcher first makes them
 * read-only binds of themselves in a mount namespace of its own, so that the sandbox's /dev cannot change them.
 */
export function passSeccompArgv(
  exec: string,
  network: SeccompNetwork,
  bwrapArgv: readonly string[],
  readOnlyDevices = false,
  cgroup?: string,
): string[] {
  const devices = readOnlyDevices ? ['--read-only-devices'] : [];
  const joined = cgroup === undefined ? [] : ['--cgroup', cgroup];
  return [exec, ...joined, '--seccomp-fd', String(SECCOMP_FD), programFor(network), ...devices, '--', ...bwrapArgv];
}

/**
 * `argv` run through the launcher `exec` inside the sandbox: in a Landlock domain of its own (so it cannot trace a
 * process of the sandbox less restricted than itself), and under the filter for `network` when one is given.
 */
export function innerArgv(exec: string, network: SeccompNetwork | undefined, argv: readonly string[]): string[] {
  return [exec, ...(network === undefined ? [] : ['--seccomp', programFor(network)]), '--', ...argv];
}

/**
 * The launcher's options for the Landlock backend's sandbox: no capabilities, writes only to `grants`
 * (landlockGrantArgs), TCP off and no sockets with `network` 'none' or 'supervised', the filter for `network`, and the
 * supervisor's `supervision` (supervisionArgs; with 'supervised', made with `networkRefusals`).
 */
export function landlockOptions(
  grants: readonly string[],
  network: SeccompNetwork,
  supervision: readonly string[] = [],
): string[] {
  const offline = network === 'none' || network === 'supervised' ? ['--no-network'] : [];
  return ['--landlock', ...grants, ...offline, '--seccomp', programFor(network), ...supervision];
}

/** `argv` run through the launcher `exec` as the Landlock backend's sandbox, its options on the command line. */
export function landlockArgv(
  exec: string,
  grants: readonly string[],
  network: SeccompNetwork,
  argv: readonly string[],
  supervision: readonly string[] = [],
): string[] {
  return [exec, ...landlockOptions(grants, network, supervision), '--', ...argv];
}

/**
 * `argv` run through the launcher `exec` with `options` handed over in a new file in `dir` (`--args-file`: the
 * launcher reads and removes it). A Landlock sandbox has a grant per folder of each writable root, thousands in a busy
 * /tmp, and node-pty's fork copies every argument through handles of one scope: with hundreds of them it was seen
 * to return a number instead of its result (a tty spawn then failed with "expected an fd").
 */
export function argsFileArgv(
  exec: string,
  dir: string,
  options: readonly string[],
  argv: readonly string[],
): { argv: string[]; file: string } {
  const file = join(dir, `args-${nodeCrypto().randomBytes(8).toString('hex')}`);
  writeFileSync(file, options.map((option) => `${option}\0`).join(''), { mode: 0o600, flag: 'wx' });
  return { argv: [exec, '--args-file', file, '--', ...argv], file };
}

/** The fd a launcher in standby (`--standby`) reads its options and command from: a pipe only the server holds. */
export const STANDBY_FD = 3;

/**
 * What a launcher in standby reads through STANDBY_FD: `options` (landlockOptions), what a spawner would have set for
 * the command (its folder, its environment, and its terminal at `tty`, else stdin from /dev/null unless `pipeStdin`),
 * then `argv`; each ended by a NUL byte.
 */
export function standbyHandOver(
  options: readonly string[],
  spawn: { cwd: string; env: Readonly<Record<string, string>>; pipeStdin: boolean; tty?: string },
  argv: readonly string[],
): string {
  const env = Object.entries(spawn.env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  const stdin = spawn.tty !== undefined ? ['--tty', spawn.tty] : spawn.pipeStdin ? [] : ['--null-stdin'];
  const words = [...options, '--cwd', spawn.cwd, ...env, ...stdin, '--', ...argv];
  // A NUL byte would end the word early: refused, as a spawn refuses it in an argument or the environment.
  const withNul = words.find((word) => word.includes('\0'));
  if (withNul !== undefined)
    throw new Error(`an argument or environment variable holds a NUL byte: ${JSON.stringify(withNul)}`);
  return words.map((word) => `${word}\0`).join('');
}

/** The supervision filter, without and with sockets, made once. */
const supervision = new Map<boolean, string>();

/**
 * The supervisor's arguments (native/supervisor.c): its filter, every writable root (made, removed, renamed and
 * changed in only there), the folders kept read-only wherever they lie, and the names kept at each root's top. With
 * `networkRefusals` (the network off, under the `supervised` policy filter) the supervisor also refuses IP sockets,
 * and makes that file the first time it does, holding the family it refused (`AF_INET`, `AF_INET6`).
 */
export function supervisionArgs(
  roots: readonly string[],
  keepOut: readonly string[],
  keptNames: readonly string[],
  networkRefusals?: string,
): string[] {
  const sockets = networkRefusals !== undefined;
  let program = supervision.get(sockets);
  if (program === undefined)
    supervision.set(sockets, (program = supervisionProgram(undefined, sockets).toString('base64')));
  const each = (flag: string, values: readonly string[]) => values.flatMap((value) => [flag, value]);
  return [
    '--supervise',
    program,
    ...each('--root', roots),
    ...each('--keep-out', keepOut),
    ...each('--kept-name', keptNames),
    ...(sockets ? ['--network-refusals', networkRefusals] : []),
  ];
}
