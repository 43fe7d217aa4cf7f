// Running the server as another, unprivileged user (nobody, uid 65534) from a root test. The checkout may sit under
// a folder nobody cannot enter, or be one (a clone into `mktemp -d` is 0700 itself), so the command runs in a mount
// namespace of its own where a fresh 0755 tmpfs at a path everyone can reach holds a bind of each of the checkout's
// entries (their own modes are git's: 0755 folders, 0644 files).
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from '../mcp/cli-process.js';

export const NOBODY = 65534;
export const NOBODY_IDS = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];

/** Why a root test cannot switch to nobody here, or undefined when it can. Under CI=true CI makes it possible. */
export const CANNOT_SWITCH_USER = (() => {
  if (process.getuid?.() !== 0) return 'the tests do not run as root';
  for (const tool of ['setpriv', 'unshare'])
    if (spawnSync(tool, ['--version']).status !== 0) return `${tool} (util-linux) is not installed`;
  // Root in a user namespace that maps root alone (`unshare -U -r`) has no uid 65534 to become.
  if (spawnSync('setpriv', [...NOBODY_IDS, '--', 'true']).status !== 0)
    return `uid ${NOBODY} cannot be switched to here`;
  return undefined;
})();

/** Where the checkout is bound for nobody: an empty folder anyone may enter (made once per test process). */
let mounted: string | undefined;
const mountPoint = () => {
  if (mounted === undefined) {
    mounted = mkdtempSync('/var/tmp/ue-checkout-');
    chmodSync(mounted, 0o755);
  }
  return mounted;
};

/** Removes the (empty) folder the checkout was bound at; the binds lived in the commands' own namespaces. */
export function removeMountPoint(): void {
  if (mounted !== undefined) rmdirSync(mounted);
  mounted = undefined;
}

/**
 * `command` and `args` that run `argv(checkout)` as nobody, where `checkout` is where the checkout is seen from
 * there (e.g. `(at) => [process.execPath, join(at, 'dist/cli/index.js'), 'mcp']`).
 */
export function asNobody(argv: (checkout: string) => string[]): { command: string; args: string[] } {
  const at = mountPoint();
  const script = [
    'mount -t tmpfs -o mode=0755 ue-checkout "$2" || exit 1',
    'for entry in "$1"/* "$1"/.[!.]*; do',
    '  [ -e "$entry" ] || continue',
    '  at="$2/${entry##*/}"',
    '  if [ -d "$entry" ]; then mkdir "$at"; else : > "$at"; fi',
    // A server's mask of a protected name (an empty `.agents` in a checkout another test serves) may go meanwhile.
    '  if ! mount --bind "$entry" "$at"; then [ -e "$entry" ] && exit 1; rm -rf "$at"; fi',
    'done',
    'shift 2',
    'exec setpriv "$@"',
  ].join('\n');
  return {
    command: 'unshare',
    args: ['-m', '--propagation', 'private', 'sh', '-c', script, 'as-nobody', ROOT, at, ...NOBODY_IDS, ...argv(at)],
  };
}

/** `command` and `args` that run `node <file of the checkout> ...args` as nobody (`file` relative to the checkout). */
export const nodeAsNobody = (file: string, args: readonly string[]) =>
  asNobody((at) => [process.execPath, join(at, file), ...args]);

/** `node <file of the checkout> ...args` as root (the test's own user) or as nobody. */
export const nodeAs = (user: 'root' | 'nobody', file: string, args: string[]) =>
  user === 'root' ? { command: process.execPath, args: [join(ROOT, file), ...args] } : nodeAsNobody(file, args);

/**
 * A maker of fresh folders (mode 755) of root's or nobody's own under a parent; an afterAll removes every one, and the
 * mount point nobody's runs use, after the file.
 */
export function folderMaker(): (user: 'root' | 'nobody', parent: string, prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
    removeMountPoint();
  });
  return (user, parent, prefix) => {
    const dir = mkdtempSync(join(parent, prefix));
    made.push(dir);
    chmodSync(dir, 0o755);
    if (user === 'nobody') chownSync(dir, NOBODY, NOBODY);
    return dir;
  };
}
