// Which sandbox backend works here, found by running a sandboxed `true` on each: apart from the launcher (which
// plans and runs the sandboxes themselves) so that a server decides before it answers its first requests without
// loading the launcher's code, which its first command loads.
import { spawn, spawnSync } from 'node:child_process';
import { type Dirent, readdirSync } from 'node:fs';
import { TRUSTED_PATH, findTrustedExecutable } from '../util/executable.js';
import { KEPT_NAMES, landlockGrantArgs, planLandlock, type EntryType } from './landlock.js';
import type { SandboxBackend } from './policy.js';
import {
  SANDBOX_EXEC_HELP,
  SANDBOX_EXEC_PATH,
  SECCOMP_FD,
  findSandboxExec,
  innerArgv,
  landlockArgv,
  passSeccompArgv,
  supervisionArgs,
} from './sandbox-exec.js';

/** What to tell someone whose machine cannot run the sandbox. */
export const SANDBOX_HELP =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) on a kernel that allows user namespaces, or run on a kernel with Landlock enabled (5.13+), or choose `--sandbox danger-full-access` knowingly to run commands unsandboxed';

/** Why the sandbox cannot run without our launcher at `path`, and how to build it. */
export const notBuilt = (path: string) =>
  path === SANDBOX_EXEC_PATH
    ? `the sandbox's launcher is missing: ${SANDBOX_EXEC_HELP}`
    : `the sandbox's launcher ${path} is missing; ${SANDBOX_EXEC_HELP}`;

/** A probe: a sandboxed `true` to run, and what its exit status and stderr say. */
interface Probe<T> {
  argv: string[];
  judge(status: number | null, stderr: string): T;
}
type BwrapProbeResult = { ok: true; bwrap: string } | { ok: false; reason: string };
type LandlockProbeResult = { ok: true } | { ok: false; reason: string };
type ProbeResult = BwrapProbeResult | LandlockProbeResult;
type ProbeStep = Probe<ProbeResult> | ProbeResult;

const PROBE_TIMEOUT_MS = 10_000;

function runProbe<T>(probe: Probe<T> | T): T {
  if (!isProbe(probe)) return probe;
  const [command, ...args] = probe.argv;
  const result = spawnSync(command!, args, {
    encoding: 'utf8',
    timeout: PROBE_TIMEOUT_MS,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return probe.judge(result.status, result.stderr || result.error?.message || '');
}

function runProbeAsync<T>(probe: Probe<T> | T): Promise<T> {
  if (!isProbe(probe)) return Promise.resolve(probe);
  const [command, ...args] = probe.argv;
  return new Promise((resolve) => {
    const child = spawn(command!, args, { timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => (stderr ||= error.message));
    child.once('close', (status) => resolve(probe.judge(status, stderr)));
  });
}

const isProbe = <T>(value: Probe<T> | T): value is Probe<T> =>
  typeof value === 'object' && value !== null && 'argv' in value && 'judge' in value;

/**
 * Is bubblewrap here and able to make the namespaces we use, and does our launcher install its seccomp filter in
 * there (and, for a root server, make the host's devices read-only for it)? `reason` says why not.
 */
export function probeSandbox(pathVar = TRUSTED_PATH, sandboxExec = SANDBOX_EXEC_PATH): BwrapProbeResult {
  return runProbe(bwrapProbe(pathVar, sandboxExec));
}

function bwrapProbe(pathVar: string, sandboxExec: string): Probe<BwrapProbeResult> | BwrapProbeResult {
  const bwrap = findBwrap(pathVar);
  if (bwrap === undefined) return { ok: false, reason: 'bubblewrap (bwrap) is not installed' };
  const exec = findSandboxExec(sandboxExec);
  if (exec === undefined) return { ok: false, reason: notBuilt(sandboxExec) };
  const probe = [bwrap, '--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net'];
  probe.push('--proc', '/proc', '--seccomp', String(SECCOMP_FD), '--', ...innerArgv(exec, 'off', ['true']));
  return {
    argv: passSeccompArgv(exec, 'off', probe, ownsDevices()),
    judge(status, stderr) {
      if (status === 0) return { ok: true, bwrap };
      const detail = (stderr || `exit ${status}`).trim();
      if (detail.startsWith('unified-exec-sandbox-exec:'))
        return {
          ok: false,
          reason: detail.includes('seccomp')
            ? `the sandbox's seccomp filter cannot be installed here (${detail})`
            : `the sandbox's launcher cannot make the host's devices read-only for it here (${detail})`,
        };
      return { ok: false, reason: `bubblewrap cannot create namespaces here (${detail})` };
    },
  };
}

/** A root server's sandbox owns the host's device nodes: the launcher makes them read-only for it (see passSeccompArgv). */
export const ownsDevices = () => process.getuid?.() === 0;

/** Can our launcher enter a Landlock domain here, with its filter and its supervisor? `reason` says why not. */
export function probeLandlock(sandboxExec = SANDBOX_EXEC_PATH): LandlockProbeResult {
  return runProbe(landlockProbe(sandboxExec));
}

function landlockProbe(sandboxExec: string): Probe<LandlockProbeResult> | LandlockProbeResult {
  const exec = findSandboxExec(sandboxExec);
  if (exec === undefined) return { ok: false, reason: notBuilt(sandboxExec) };
  const truePath = findTrustedExecutable('true');
  if (truePath === undefined) return { ok: false, reason: 'no `true` program in the system PATH to probe with' };
  // As a read-only sandbox grants: reading everything but other terminals, writing nothing.
  const grants = landlockGrantArgs(planLandlock([], [], [], { entries: folderEntries }));
  return {
    argv: landlockArgv(exec, grants, 'none', [truePath], supervisionArgs([], [], KEPT_NAMES)),
    judge(status, stderr) {
      if (status === 0) return { ok: true };
      const detail = (stderr || `exit ${status}`).trim();
      return { ok: false, reason: detail.replace(/^unified-exec-sandbox-exec: /, '') };
    },
  };
}

/** The backend a sandbox runs on here, or why none can. */
export type BackendChoice =
  { ok: true; backend: SandboxBackend; bwrap?: string; passedOver?: string } | { ok: false; reason: string };

/**
 * The choice of a backend as steps: each yields the probe it needs run next (bubblewrap's, then Landlock's only if
 * that one failed or is passed over) and is handed its result; the return is the choice. One decision, run
 * synchronously (chooseBackend) or without blocking the event loop (chooseBackendAsync).
 */
function* choiceSteps(forced: SandboxBackend | undefined): Generator<ProbeStep, BackendChoice, ProbeResult> {
  if (forced !== 'landlock') {
    const bwrap = (yield bwrapProbe(TRUSTED_PATH, SANDBOX_EXEC_PATH)) as BwrapProbeResult;
    if (bwrap.ok) return { ok: true, backend: 'bwrap', bwrap: bwrap.bwrap };
    if (forced === 'bwrap') return { ok: false, reason: bwrap.reason };
    const landlock = yield landlockProbe(SANDBOX_EXEC_PATH);
    if (landlock.ok) return { ok: true, backend: 'landlock', passedOver: bwrap.reason };
    return { ok: false, reason: `${bwrap.reason}; and the Landlock backend cannot run either: ${landlock.reason}` };
  }
  const landlock = yield landlockProbe(SANDBOX_EXEC_PATH);
  return landlock.ok
    ? { ok: true, backend: 'landlock' }
    : { ok: false, reason: `the Landlock backend cannot run here: ${landlock.reason}` };
}

/**
 * Picks the backend: `forced` when given (and it works here), else bubblewrap where it works, else Landlock;
 * `passedOver` says why bubblewrap was not taken. Each probe runs a sandboxed `true` once.
 */
export function chooseBackend(forced?: SandboxBackend): BackendChoice {
  const steps = choiceSteps(forced);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    step = steps.next(runProbe(step.value));
  }
}

/** chooseBackend with the probes run as child processes the event loop does not wait on: a server loads meanwhile. */
export async function chooseBackendAsync(forced?: SandboxBackend): Promise<BackendChoice> {
  const steps = choiceSteps(forced);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    step = steps.next(await runProbeAsync(step.value));
  }
}

/** The system's bwrap (never one a PATH names first), by its real path (as /proc/<pid>/exe names it). */
export function findBwrap(pathVar: string): string | undefined {
  return findTrustedExecutable('bwrap', pathVar);
}

/** A folder's entries for the Landlock plan; none when it cannot be read. */
export function folderEntries(dir: string): { name: string; type: EntryType }[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.map((entry) => ({
    name: entry.name,
    type: entry.isDirectory()
      ? 'dir'
      : entry.isFile()
        ? 'file'
        : entry.isFIFO()
          ? 'fifo'
          : entry.isCharacterDevice() || entry.isBlockDevice()
            ? 'device'
            : 'other',
  }));
}
