/**
 * The cgroup this server's sandboxes with the network on run in, and the check it makes possible: the kernel keeps,
 * on every socket, the cgroup (v2) of the process that made it, whoever holds the socket later. A sandboxed command
 * that hands its connection to the server over to a process outside (a desktop's D-Bus daemon queues a message with
 * an fd in it) leaves no sandboxed holder for the server to find, but the socket is still the sandbox's.
 *
 * The cgroup is a child of the server's own, `unified-exec-sandboxes-<pid>`, made on the first sandbox that needs it:
 * where the server may make it and move processes into it (root, or a user whose cgroup is delegated to it, as
 * systemd's user services are). The launcher joins it before anything else (native/sandbox-exec.c, `--cgroup`), and a
 * sandboxed command cannot leave it: the cgroup file system is read-only to it on both backends.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { optionalNativeHelpers } from '../util/native-addon.js';
import { processExists } from '../util/private-dir.js';

const PREFIX = 'unified-exec-sandboxes-';

/** A cgroup made for sandboxes: its folder, and its id (the folder's inode: what sock_diag reports for a socket). */
export interface SandboxCgroup {
  dir: string;
  id: bigint;
}

/** Undoes the octal escapes of a mountinfo field (`\040` for a space). */
const unescape = (field: string) =>
  field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/**
 * Where this process's cgroup v2 folder is, from `/proc/self/cgroup` (its `0::` line) and `/proc/self/mountinfo` (a
 * `cgroup2` mount whose root holds it); undefined without a v2 hierarchy. Pure.
 */
export function ownCgroupFolder(cgroupFile: string, mountinfo: string): string | undefined {
  const own = /^0::(\/.*)$/m.exec(cgroupFile)?.[1];
  if (own === undefined) return undefined;
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.split(' ')[0] !== 'cgroup2' || left === undefined) continue;
    const fields = left.split(' ');
    const root = unescape(fields[3] ?? '');
    const point = unescape(fields[4] ?? '');
    if (root === '' || point === '') continue;
    const beneath =
      root === '/' ? own : own === root || own.startsWith(`${root}/`) ? own.slice(root.length) : undefined;
    if (beneath !== undefined) return beneath === '' || beneath === '/' ? point : join(point, beneath);
  }
  return undefined;
}

let made: SandboxCgroup | null | undefined;

/**
 * The sandboxes' cgroup, made on first use with `launcher` proving a process can join it; null where it cannot be
 * made here (no cgroup v2, or not the server's to write): then only the sockets' holders tell a sandbox's connection.
 */
export function sandboxCgroup(launcher: string): SandboxCgroup | null {
  if (made !== undefined) return made;
  made = null;
  // The listeners ask the kernel for a socket's cgroup through our addon: without it, a cgroup would tell nothing.
  if (optionalNativeHelpers() === undefined) return made;
  let parent: string | undefined;
  try {
    parent = ownCgroupFolder(
      readFileSync('/proc/self/cgroup', 'latin1'),
      readFileSync('/proc/self/mountinfo', 'latin1'),
    );
  } catch {
    return made;
  }
  if (parent === undefined) return made;
  removeStale(parent);
  const dir = join(parent, `${PREFIX}${process.pid}`);
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return made;
  }
  // A process must be able to move from our cgroup into it (delegation): the launcher proves it, joining and exiting.
  const proof = spawnSync(launcher, ['--cgroup', dir, '--', 'true'], { stdio: 'ignore', timeout: 10_000 });
  if (proof.status !== 0) {
    removeQuietly(dir);
    return made;
  }
  made = { dir, id: statSync(dir, { bigint: true }).ino };
  process.once('exit', () => removeQuietly(dir)); // empty once the sandboxes have ended; else the next server's
  return made;
}

/**
 * Cgroup ids seen in the tree: a sandboxes' cgroup of some server (true) or another (false). Ids are never reused and
 * cgroup folders cannot be renamed, so a verdict once seen holds.
 */
const known = new Map<bigint, boolean>();
const KNOWN_LIMIT = 4096;

/**
 * Whether a socket's cgroup id (sock_diag's) is a sandboxes' cgroup: this server's, or any other server's on this
 * machine (a second `serve`, an exec-server running this server's sessions), wherever it lies in the hierarchy, or a
 * cgroup beneath one; `gone` for a cgroup no longer in the tree (a socket keeps its cgroup after the folder is
 * removed: a stopped server's sandboxes' cgroup among them), which is no one's to be told. An id not seen before is
 * looked for in the whole cgroup v2 tree once (a few hundred folders on a desktop: about a millisecond).
 */
export function madeInSandbox(cgroup: bigint | undefined): boolean | 'gone' {
  if (cgroup === undefined) return false;
  if (made !== undefined && made !== null && cgroup === made.id) return true;
  const seen = known.get(cgroup);
  if (seen !== undefined) return seen;
  if (known.size > KNOWN_LIMIT) known.clear();
  for (const [id, sandbox] of cgroupTree()) known.set(id, sandbox);
  return known.get(cgroup) ?? 'gone';
}

/**
 * Every cgroup in this machine's cgroup v2 tree (as this process sees it, its top included) by id, with whether it
 * is a sandboxes' cgroup or beneath one.
 */
function cgroupTree(): Map<bigint, boolean> {
  const tree = new Map<bigint, boolean>();
  let root: string | undefined;
  try {
    root = ownCgroupFolder('0::/\n', readFileSync('/proc/self/mountinfo', 'latin1'));
  } catch {
    return tree;
  }
  const walk = (dir: string, sandbox: boolean) => {
    try {
      tree.set(statSync(dir, { bigint: true }).ino, sandbox);
    } catch {
      return; // removed meanwhile
    }
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries)
      if (entry.isDirectory()) walk(join(dir, entry.name), sandbox || entry.name.startsWith(PREFIX));
  };
  if (root !== undefined) walk(root, false);
  return tree;
}

/** Removes the sandboxes' cgroups of servers that are gone (only empty ones can be removed). */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
    removeQuietly(join(parent, name));
  }
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // processes still in it, or gone already
  }
}
