import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { TRUSTED_PATH, findTrustedExecutable } from '../util/executable.js';
import { makeProcessDir, stateRoot } from '../util/private-dir.js';
import { MaskRegistry } from './mask-registry.js';
import { sandboxCgroup } from '../linux/sandbox-cgroup.js';
import { DomainProxy, PROXY_UNSET_ENV, proxyBridgeArgv, proxyEnvironment } from './domain-proxy.js';
import { bwrapArgv, planMounts, writableRoots, type PathKind } from './bwrap.js';
import { KEPT_NAMES, landlockGrantArgs, planLandlock, planReads } from './landlock.js';
import { noRouteCount } from './network-counters.js';
import { hiddenFiles } from './secret-files.js';
import { isNetworkRestricted, isSandboxed, type SandboxBackend, type SandboxPolicy } from './policy.js';
import type { SeccompNetwork } from './seccomp.js';
import {
  SANDBOX_EXEC_PATH,
  SECCOMP_FD,
  STANDBY_FD,
  findSandboxExec,
  innerArgv,
  argsFileArgv,
  landlockOptions,
  passSeccompArgv,
  supervisionArgs,
} from './sandbox-exec.js';
import { SANDBOX_HELP, chooseBackend, findBwrap, folderEntries, notBuilt, ownsDevices } from './backend-probe.js';

/** Where the allowlist proxy listens inside a sandbox: its own loopback, so any port is free. */
const PROXY_PORT = 3128;

/** Whether commands under `policy` reach the network only through the allowlist proxy. */
const usesProxy = (policy: SandboxPolicy) => isNetworkRestricted(policy) && policy.allowedDomains.length > 0;

/** A command made ready to run in the sandbox: run `argv` with `env`; call `release()` once it has ended. */
export interface SandboxedCommand {
  argv: string[];
  env: Record<string, string>;
  /** Levels of the process tree that are the sandbox's own relays (bubblewrap, and its init): 2, or 0 unwrapped. */
  supervisorDepth: number;
  release(): void;
  /**
   * Present where the sandbox can tell that the command was refused the network (the network off, no allowlist):
   * what was refused (e.g. `socket(AF_INET) refused`) once it has been, else undefined. `leader`: the pid `argv`
   * runs as. Once it has answered, it answers the same (after release too).
   */
  networkRefusal?(leader: number | undefined): string | undefined;
  /**
   * Present when wrapped `{ standby: true }` on the Landlock backend: `argv` is then a launcher to start ahead of the
   * command (standbyArgv), and these are what to hand it once started (see StandbyLaunchers): the launcher's
   * options, and the command.
   */
  handOver?: { options: string[]; argv: string[] };
}

const realPath = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/**
 * What the Landlock backend keeps read-only beyond the kept names, from the plan bubblewrap would lay for the same
 * roots (planMounts): a root or a folder between roots that holds a `HEAD` is a repository in the making, and its
 * other repository files (objects, refs, config, hooks, commondir), there or not, are kept as the server's folders
 * are. Throws, as bubblewrap's start does, where a protected name is a link (the command could replace it, and the
 * supervisor keeps names, not what they point to) or a root is a bare repository (its config and hooks are files of
 * its top the sandbox may write).
 */
function landlockKeptFiles(roots: readonly string[]): string[] {
  const mounts = planMounts(roots, 'off', { kind: pathKind, theirs, kernelPath: () => undefined });
  const [unprotectable] = mounts.unprotectable;
  if (unprotectable !== undefined) throw new Error(unprotectableReason(unprotectable));
  const kept = [...mounts.readOnly, ...mounts.masked, ...mounts.maskedFiles];
  return kept.filter((path) => !KEPT_NAMES.includes(basename(path)));
}

/** Why the sandbox cannot start with `path` in it (see MountPlan.unprotectable). */
function unprotectableReason(path: string): string {
  return lstatSync(path).isSymbolicLink()
    ? `${path} is a symbolic link, which the sandbox cannot keep read-only (a command could replace it): put the folder itself there, or remove the link`
    : `${path} is a bare git repository, whose config, hooks and other files the sandbox cannot keep read-only: choose a working tree of it, or another folder, as the workspace`;
}

/** Which of the kernel's paths exist here, looked up once: the same kernel answers the same. */
const kernelPaths = new Map<string, 'file' | 'dir' | undefined>();
function kernelPath(path: string): 'file' | 'dir' | undefined {
  if (!kernelPaths.has(path)) {
    let at: 'file' | 'dir' | undefined;
    try {
      at = statSync(path).isDirectory() ? 'dir' : 'file';
    } catch {
      at = undefined;
    }
    kernelPaths.set(path, at);
  }
  return kernelPaths.get(path);
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

function pathKind(path: string): PathKind {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return isTheirs(path, stat) ? 'foreign-link' : 'link';
    if (stat.isDirectory()) return readdirSync(path).length === 0 ? 'empty' : 'present';
    return stat.isFile() && stat.size === 0 ? 'empty-file' : 'present';
  } catch (error) {
    // Unreadable is not empty: bind it read-only as it is.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'present';
  }
}

/** Another user's entry in a sticky folder (such as /tmp): they may keep it, and we may not remove it. */
function isTheirs(path: string, stat: { uid: number }): boolean {
  return stat.uid !== process.getuid?.() && (lstatSync(dirname(path)).mode & 0o1000) !== 0;
}

function theirs(path: string): boolean {
  try {
    return isTheirs(path, lstatSync(path));
  } catch {
    return false;
  }
}

/**
 * Wraps commands in bubblewrap for a policy, and keeps what the sandboxes share: the empty folders made as mount
 * points for masks (see MaskRegistry), and the allowlist proxies.
 */
export class SandboxLauncher {
  private static readonly instances = new Map<SandboxBackend | 'auto', SandboxLauncher>();
  private bwrap: string | undefined;
  private sandboxExec: string | undefined;
  /** The backend in use: as forced, or chosen on the first wrap. */
  private backend: SandboxBackend | undefined;
  private readonly masks = new MaskRegistry();
  /** Allowlist proxies by their sorted domains, started once and kept while this process runs. */
  private readonly proxies = new Map<string, Promise<DomainProxy>>();
  /** The proxies ready() has seen running, for wrap(), which cannot wait. */
  private readonly started = new Map<string, DomainProxy>();
  private proxyDir: string | undefined;
  /** The writable roots' entries, listed again only when a root changed (a busy /tmp: ~1 ms a session). */
  private readonly listings = new FolderListings();
  /** The Landlock backend's read grants (planReads), made on its first sandbox. */
  private reads: ReturnType<typeof planReads> | undefined;

  /**
   * The launcher of this process for `backend` (default: chosen on first use, see chooseBackend): one count of
   * masked folders for every session here.
   */
  static shared(backend?: SandboxBackend): SandboxLauncher {
    const key = backend ?? 'auto';
    let launcher = SandboxLauncher.instances.get(key);
    if (launcher === undefined)
      SandboxLauncher.instances.set(key, (launcher = new SandboxLauncher(undefined, backend)));
    return launcher;
  }

  /** `bwrap`: the binary to use (and the backend bwrap); default: the backend chosen on first use. */
  constructor(bwrap?: string, backend?: SandboxBackend) {
    this.bwrap = bwrap;
    this.backend = backend ?? (bwrap === undefined ? undefined : 'bwrap');
  }

  /** The backend this launcher runs sandboxes on (choosing it now if it has not yet); throws when none works. */
  backendInUse(): SandboxBackend {
    if (this.backend === undefined) {
      const choice = chooseBackend();
      if (!choice.ok) throw new Error(`the sandbox cannot run here: ${choice.reason}. To fix it, ${SANDBOX_HELP}`);
      this.backend = choice.backend;
      if (choice.bwrap !== undefined) this.bwrap = choice.bwrap;
    }
    return this.backend;
  }

  /**
   * Starts what commands under `policy` need before they can be wrapped: the allowlist proxy. Call it before
   * `wrap`; repeated calls cost nothing.
   */
  async ready(policy: SandboxPolicy): Promise<void> {
    if (!usesProxy(policy)) return;
    const key = proxyKey(policy);
    if (!this.proxies.has(key)) {
      this.proxyDir ??= this.makePrivateFolder('proxy-');
      const socketPath = join(this.proxyDir, `proxy-${this.proxies.size}.sock`);
      const starting = DomainProxy.start({ allowedDomains: policy.allowedDomains, socketPath });
      this.proxies.set(key, starting);
      starting.catch(() => this.proxies.delete(key)); // the next ready() tries again
    }
    this.started.set(key, await this.proxies.get(key)!);
  }

  /**
   * Whether commands under `policy` run through the Landlock launcher, which can be started ahead of them
   * (`standbyArgv`, and `wrap` with `{ standby: true }`).
   */
  takesStandby(policy: SandboxPolicy | undefined): boolean {
    return isSandboxed(policy) && this.backendInUse() === 'landlock' && !usesProxy(policy);
  }

  /** The Landlock launcher waiting for its options and command on fd STANDBY_FD (native/sandbox-exec.c). */
  standbyArgv(): string[] {
    return [this.launcherPath(), '--standby', String(STANDBY_FD)];
  }

  /**
   * Throws (a plain Error saying what to do) when bubblewrap is missing. With `standby` (where takesStandby), the
   * command is made ready for a launcher already started: see SandboxedCommand.handOver.
   */
  wrap(
    policy: SandboxPolicy,
    command: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>> },
    { standby = false }: { standby?: boolean } = {},
  ): SandboxedCommand {
    if (!isSandboxed(policy))
      return { argv: [...command.argv], env: { ...command.env }, supervisorDepth: 0, release: () => undefined };
    if (this.backendInUse() === 'landlock') return this.wrapLandlock(policy, command, standby);
    this.bwrap ??= findBwrap(TRUSTED_PATH);
    if (this.bwrap === undefined)
      throw new Error(`the sandbox needs bubblewrap (bwrap), which is not installed: ${SANDBOX_HELP}`);
    const sandboxExec = this.launcherPath();
    const roots = writableRoots(policy, command.env.TMPDIR, realPath);
    const secrets = hiddenFiles().flatMap((path) => {
      const real = realPath(path);
      return real !== undefined && isFile(real) ? [real] : [];
    });
    const facts = { kind: pathKind, theirs, kernelPath, keepReadOnly: [stateRoot()], secrets };
    const plan = planMounts(roots, policy.network, facts);
    const [unprotectable] = plan.unprotectable;
    if (unprotectable !== undefined) throw new Error(unprotectableReason(unprotectable));
    // The policy's filter goes on the whole sandbox; the command also gets a Landlock domain of its own.
    let filter: SeccompNetwork = policy.network;
    let argv = innerArgv(sandboxExec, undefined, command.argv);
    const env = { ...command.env };
    if (usesProxy(policy)) {
      const proxy = this.started.get(proxyKey(policy));
      if (proxy === undefined) throw new Error('the allowlist proxy is not running: call ready(policy) before wrap');
      // socat connects to the proxy's unix socket: the sandbox gets the every-mode filter only, and the command the
      // network-off one too (filters stack), whose IP sockets reach nothing but the bridge; its Landlock domain
      // keeps it from tracing the bridge.
      filter = 'on';
      argv = bridgedArgv(proxy.socketPath, innerArgv(sandboxExec, 'off', command.argv));
      for (const name of PROXY_UNSET_ENV) delete env[name];
      Object.assign(env, proxyEnvironment(PROXY_PORT));
    }
    const masks = [...plan.masked, ...plan.maskedFiles];
    for (const path of masks) this.masks.use(path);
    let released = false;
    let refused: string | undefined;
    const networkRefusal = (leader: number | undefined) => {
      if (refused === undefined && leader !== undefined) {
        const packets = noRoutePackets(leader);
        if (packets > 0)
          refused = `${packets} packet${packets === 1 ? '' : 's'} for outside the sandbox found no route`;
      }
      return refused;
    };
    return {
      ...(policy.network === 'off' && !usesProxy(policy) ? { networkRefusal } : {}),
      argv: passSeccompArgv(
        sandboxExec,
        filter,
        bwrapArgv(this.bwrap, plan, command.cwd, argv, SECCOMP_FD),
        ownsDevices(),
        policy.network === 'on' ? sandboxCgroup(sandboxExec)?.dir : undefined,
      ),
      env,
      supervisorDepth: 2,
      release: () => {
        if (released) return;
        released = true;
        this.masks.release(masks, this.bwrap);
      },
    };
  }

  /**
   * The Landlock backend: the launcher itself is the sandbox (see landlock.ts for what it grants). The domain
   * allowlist needs a network namespace of the sandbox's own, which only bubblewrap makes: refused here.
   */
  private wrapLandlock(
    policy: SandboxPolicy,
    command: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>> },
    standby: boolean,
  ): SandboxedCommand {
    const sandboxExec = this.launcherPath();
    if (usesProxy(policy))
      throw new Error(
        'the domain allowlist (--allowed-domain) needs the bubblewrap backend, which cannot run here: the Landlock backend has no network of its own to put the proxy in',
      );
    const roots = writableRoots(policy, command.env.TMPDIR, realPath);
    const keepOut = [stateRoot(), ...landlockKeptFiles(roots)];
    // Every root is granted entry by entry, /tmp and $TMPDIR too: the top of a root is then never the domain's to
    // write, so what is made there (and whether it is a kept name) is decided by the supervisor alone, on what it
    // checked. A root granted whole would leave the kernel to resolve the path again after the check.
    // What may be read is the same for every session: / and /dev are read once per process.
    this.reads ??= planReads({ entries: folderEntries });
    const plan = planLandlock(roots, roots, keepOut, { entries: (dir) => this.listings.entries(dir) }, this.reads);
    const env = { ...command.env };
    this.launchDir ??= this.makePrivateFolder('launch-');
    // With the network off the supervisor refuses IP sockets itself and records it here, out of the command's reach.
    const refusals =
      policy.network === 'off' ? join(this.launchDir, `refused-${randomBytes(8).toString('hex')}`) : undefined;
    const network = refusals === undefined ? 'on' : 'supervised';
    const supervision = supervisionArgs(roots, keepOut, KEPT_NAMES, refusals);
    // With the network on, its sockets are made in the sandboxes' cgroup (see sandbox-cgroup.ts), where there is one.
    const cgroup = network === 'on' ? sandboxCgroup(sandboxExec) : null;
    const options = [
      ...(cgroup === null ? [] : ['--cgroup', cgroup.dir]),
      ...landlockOptions(landlockGrantArgs(plan), network, supervision),
    ];
    const refusal = refusals === undefined ? undefined : recordedRefusal(refusals);
    const shared = { env, supervisorDepth: 1, ...(refusal ? { networkRefusal: () => refusal.read() } : {}) };
    if (standby) {
      return {
        ...shared,
        argv: this.standbyArgv(),
        handOver: { options, argv: [...command.argv] },
        release: () => refusal?.release(),
      };
    }
    const { argv, file } = argsFileArgv(sandboxExec, this.launchDir, options, command.argv);
    return {
      ...shared,
      argv,
      release: () => {
        // The launcher removes the options once read; this is for a start that failed before.
        removeFile(file);
        refusal?.release();
      },
    };
  }

  /** Our launcher, found once; throws saying how to build it when it is not there. */
  private launcherPath(): string {
    this.sandboxExec ??= findSandboxExec();
    if (this.sandboxExec === undefined) throw new Error(notBuilt(SANDBOX_EXEC_PATH));
    return this.sandboxExec;
  }

  /** The Landlock launcher's option files (argsFileArgv), in our private root; made on first use. */
  private launchDir: string | undefined;

  /** Stops the allowlist proxies and removes their folder; sandboxes started later start new ones. */
  async close(): Promise<void> {
    const proxies = [...this.proxies.values()];
    this.proxies.clear();
    this.started.clear();
    await Promise.all(proxies.map((p) => p.then((proxy) => proxy.stop()).catch(() => undefined)));
    if (this.proxyDir !== undefined) rmSync(this.proxyDir, { recursive: true, force: true });
    this.proxyDir = undefined;
  }

  /**
   * A folder in our private root, out of every sandbox's reach (so no command can put a socket or a file of its own
   * in place of ours), removed when this process exits at the latest (and, when it was killed, by the next one to
   * make such a folder: see makeProcessDir): the proxies' sockets, the launcher's options.
   */
  private makePrivateFolder(prefix: string): string {
    const dir = makeProcessDir(prefix);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }
}

/**
 * Packets that found no route in the network namespace of the sandbox bubblewrap `leader` started (noRouteCount),
 * read from its first child, bubblewrap's own init inside it; 0 when it is gone or cannot be read.
 */
function noRoutePackets(leader: number): number {
  try {
    const [inside] = readFileSync(`/proc/${leader}/task/${leader}/children`, 'latin1').split(' ');
    if (!inside) return 0;
    const snmp = readFileSync(`/proc/${inside}/net/snmp`, 'latin1');
    let snmp6 = '';
    try {
      snmp6 = readFileSync(`/proc/${inside}/net/snmp6`, 'latin1');
    } catch {
      // Absent where IPv6 is disabled.
    }
    return noRouteCount(snmp, snmp6);
  } catch {
    return 0;
  }
}

/**
 * What the supervisor recorded in `file` (see supervisionArgs): `socket(AF_INET) refused` once it has refused one.
 * Read (a failed open while there is none) until found, then kept: `release` reads it a last time and removes it.
 */
function recordedRefusal(file: string): { read(): string | undefined; release(): void } {
  let found: string | undefined;
  let released = false;
  const read = () => {
    if (found !== undefined || released || !existsSync(file)) return found;
    try {
      const family = readFileSync(file, 'latin1');
      found = `socket(${/^AF_INET6?$/.test(family) ? family : ''}) refused`;
    } catch {
      // None yet.
    }
    return found;
  };
  return {
    read,
    release: () => {
      read();
      released = true;
      removeFile(file);
      removeFile(`${file}.new`);
    },
  };
}

/** Removes a file of ours that may not be there (cheaper than rmSync's checks, which a session start pays). */
function removeFile(path: string): void {
  if (existsSync(path)) unlinkSync(path);
}

/**
 * A folder's entries (folderEntries), kept while the folder is unchanged: its modification and change times, taken
 * as nanoseconds, move with every entry made, removed or renamed in it. A listing made within a second of the
 * folder's last change is not kept: a change in the same tick of a coarse file clock would leave both times as they
 * were (git's "racy" entries).
 */
export class FolderListings {
  private readonly kept = new Map<string, { signature: string; entries: ReturnType<typeof folderEntries> }>();

  entries(dir: string): ReturnType<typeof folderEntries> {
    let stat;
    try {
      stat = statSync(dir, { bigint: true });
    } catch {
      this.kept.delete(dir);
      return folderEntries(dir);
    }
    const signature = `${stat.dev}:${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const kept = this.kept.get(dir);
    if (kept?.signature === signature) return kept.entries;
    const entries = folderEntries(dir);
    const settledNs = BigInt(Date.now() - 1000) * 1_000_000n;
    if (stat.mtimeNs < settledNs && stat.ctimeNs < settledNs) this.kept.set(dir, { signature, entries });
    else this.kept.delete(dir);
    return entries;
  }
}

const proxyKey = (policy: SandboxPolicy) => [...policy.allowedDomains].sort().join(',');

/**
 * The command behind a bridge to the allowlist proxy: socat serves the proxy's unix socket on the sandbox's own
 * 127.0.0.1 (in a session of its own, so it is never part of the terminal's foreground group), and the command
 * starts once the bridge accepts connections.
 */
function bridgedArgv(socketPath: string, argv: readonly string[]): string[] {
  // By their system paths: the script runs before the command's own filter and domain, and a PATH of the session's
  // could name a program the command planted in a writable folder.
  const tool = (name: string) => {
    const path = findTrustedExecutable(name);
    if (path === undefined) throw new Error(`the domain allowlist needs ${name}, which is not installed`);
    return shellQuote(path);
  };
  const bridge = proxyBridgeArgv(socketPath, PROXY_PORT, tool('socat')).map(shellQuote).join(' ');
  const script = [
    `${tool('setsid')} -f ${bridge} </dev/null >/dev/null 2>&1`,
    `for ((i = 0; i < 200; i++)); do (exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null && break; ${tool('sleep')} 0.01; done`,
    'exec "$@"',
  ].join('; ');
  return ['/bin/bash', '-c', script, 'unified-exec-bridge', ...argv];
}

const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
