// The private Podman store of the container tests under /var/tmp/unified-exec-podman: its configuration, and the
// base image, built once from Debian's packages (debootstrap) and kept as a tarball, so later runs only check it.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from '../../src/util/executable.js';
import { delay } from '../../src/util/delay.js';

const run = promisify(execFile);

const STATE_DIR = '/var/tmp/unified-exec-podman';
export const TEST_IMAGE = 'localhost/unified-exec-test:bookworm';

const STORAGE = join(STATE_DIR, 'storage');
const RUNROOT = join(STATE_DIR, 'run');
const TARBALL = join(STATE_DIR, 'bookworm-minbase.tar');
const LOCK = join(STATE_DIR, 'build.lock');
export const SERVICES = join(STATE_DIR, 'services');
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
/** Space the base image does not need: apt's caches and lists, documentation, translations. */
const TRIM = ['var/cache/apt', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man', 'usr/share/locale'];

const CONTAINERS_CONF = `# Written by test/containers/podman-store.ts
[containers]
# Without these limits containers fail to start on this kind of machine.
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
# crun fails on a cgroup hybrid mode host; runc works.
runtime = "runc"
cgroup_manager = "cgroupfs"
# Nothing reads the events; a file would only grow.
events_logger = "none"
# Each API exec keeps its conmon waiting this long for a client to inspect it (Docker's 5 minutes by default):
# hundreds of idle conmon processes after a test run. The executor inspects at once.
exit_command_delay = 5
tmp_dir = "${STATE_DIR}/tmp"
`;

const STORAGE_CONF = `# Written by test/containers/podman-store.ts
[storage]
driver = "overlay"
graphroot = "${STORAGE}"
runroot = "${RUNROOT}"
`;

/** Environment and flags of every podman command: our configuration and our store, never the machine's. */
export const PODMAN_ENV = {
  ...process.env,
  CONTAINERS_CONF: join(STATE_DIR, 'containers.conf'),
  CONTAINERS_STORAGE_CONF: join(STATE_DIR, 'storage.conf'),
};
export const ROOT_FLAGS = ['--root', STORAGE, '--runroot', RUNROOT];

/** Replaces a file atomically, so a test process starting at the same moment never reads half of it. */
function writeAtomically(path: string, text: string): void {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  const tmp = `${path}.${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function writeConfig(): void {
  for (const dir of [STATE_DIR, SERVICES, join(STATE_DIR, 'tmp')]) mkdirSync(dir, { recursive: true });
  writeAtomically(join(STATE_DIR, 'containers.conf'), CONTAINERS_CONF);
  writeAtomically(join(STATE_DIR, 'storage.conf'), STORAGE_CONF);
}

function podman(args: string[]) {
  return run('podman', [...ROOT_FLAGS, ...args], { env: PODMAN_ENV });
}

async function imageExists(): Promise<boolean> {
  return podman(['image', 'exists', TEST_IMAGE]).then(
    () => true,
    () => false,
  );
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock file holding the owner's pid: one test process builds, the others wait; a dead owner's lock is taken. */
async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(LOCK, 'utf8').trim() || 'NaN');
      if (Number.isInteger(owner) && !alive(owner)) rmSync(LOCK, { force: true });
      else if (Date.now() > deadline) throw new Error(`gave up waiting for the image build that holds ${LOCK}`);
      else await delay(200);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(LOCK, { force: true });
  }
}

/** Makes sure the test image is in the store: from the cached tarball, else built with debootstrap. */
export async function ensureImage(): Promise<boolean> {
  if (await imageExists()) return false;
  return withBuildLock(async () => {
    if (await imageExists()) return false;
    if (!existsSync(TARBALL)) await buildTarball();
    await podman(['import', '--change', 'CMD ["/bin/bash"]', TARBALL, TEST_IMAGE]).catch((err: Error) => {
      throw new Error(`podman import of ${TARBALL} failed: ${lastLine(err)}`);
    });
    return true;
  });
}

async function buildTarball(): Promise<void> {
  if (!findExecutable('debootstrap', '/usr/sbin:/usr/bin:/sbin:/bin')) {
    throw new Error('debootstrap is not installed (apt-get install debootstrap): it builds the test image');
  }
  const rootfs = join(STATE_DIR, `rootfs.${process.pid}`);
  const started = performance.now();
  rmSync(rootfs, { recursive: true, force: true });
  try {
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, DEBIAN_MIRROR], { maxBuffer: 64 << 20 }).catch(
      (err: Error) => {
        throw new Error(`debootstrap --variant=minbase bookworm failed: ${lastLine(err)}`);
      },
    );
    for (const dir of TRIM) {
      rmSync(join(rootfs, dir), { recursive: true, force: true });
      mkdirSync(join(rootfs, dir), { recursive: true });
    }
    const tmp = `${TARBALL}.${process.pid}`;
    await run('tar', ['-C', rootfs, '-cf', tmp, '.']);
    renameSync(tmp, TARBALL);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
  console.info(`built the podman test image in ${((performance.now() - started) / 1000).toFixed(1)} s (${TARBALL})`);
}

function lastLine(err: Error & { stderr?: string }): string {
  const text = (err.stderr ?? '').trim() || err.message;
  return text.split('\n').at(-1) ?? text;
}
