// Podman for the container tests: checks that it can run here, gets the store and image ready (podman-store.ts),
// and starts a Docker-compatible API service per test file, stopped by pid after it. Nothing here touches the
// machine's own podman storage.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import Dockerode from 'dockerode';
import { findExecutable } from '../../src/util/executable.js';
import { delay } from '../../src/util/delay.js';
import { PODMAN_ENV, ROOT_FLAGS, SERVICES, TEST_IMAGE, alive, ensureImage, writeConfig } from './podman-store.js';

export { TEST_IMAGE } from './podman-store.js';

/** Every container a test makes carries this label with the test process's pid, so leftovers can be removed. */
export const OWNER_LABEL = 'unified-exec-test.owner';
const CATATONIT = '/usr/libexec/podman/catatonit';

export type Podman =
  | {
      available: true;
      socketPath: string;
      docker: Dockerode;
      /** Milliseconds this setup took, and whether it had to build the image. */
      setupMs: number;
      built: boolean;
      stop(): Promise<void>;
    }
  | { available: false; reason: string };

let serviceCount = 0;

/** Sets up Podman (building the image on the first run) and starts an API service; says why not when it cannot. */
export async function startPodman(): Promise<Podman> {
  const started = performance.now();
  const missing = missingTools();
  if (missing !== undefined) return { available: false, reason: missing };
  try {
    writeConfig();
    const built = await ensureImage();
    stopLeftoverServices();
    const service = await startService();
    try {
      await removeLeftoverContainers(service.docker);
      await smokeTest(service.docker);
    } catch (err) {
      await service.stop();
      throw err;
    }
    return { available: true, ...service, setupMs: performance.now() - started, built };
  } catch (err) {
    return { available: false, reason: (err as Error).message };
  }
}

function missingTools(): string | undefined {
  if (process.getuid?.() !== 0) return 'podman with a private --root needs root';
  for (const tool of ['podman', 'runc', 'conmon']) {
    if (!findExecutable(tool, process.env.PATH) && !findExecutable(tool, '/usr/sbin:/usr/bin:/usr/libexec/podman')) {
      return `${tool} is not installed (apt-get install podman runc catatonit debootstrap uidmap)`;
    }
  }
  if (!existsSync(CATATONIT)) return `${CATATONIT} is missing (apt-get install catatonit): containers need an init`;
  return undefined;
}

/**
 * Services from earlier runs whose test process died (a crash, a kill -9): each left a file named after its own
 * pid holding its owner's pid. Ended by pid, and only when that pid still runs our service on our socket.
 */
function stopLeftoverServices(): void {
  for (const name of readdirNames(SERVICES)) {
    const match = /^(\d+)\.pid$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    let record: string[];
    try {
      record = readFileSync(join(SERVICES, name), 'utf8').split('\n');
    } catch {
      continue; // its owner removed it meanwhile
    }
    const owner = Number(record[0]);
    const socket = record[1] ?? '';
    if (alive(owner)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      // gone already
    }
    if (socket && cmdline.includes('system\0service') && cmdline.includes(socket)) process.kill(pid, 'SIGTERM');
    rmSync(join(SERVICES, name), { force: true });
    if (socket) rmSync(socket, { force: true });
  }
}

function readdirNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

async function startService(): Promise<{ socketPath: string; docker: Dockerode; stop(): Promise<void> }> {
  const socketPath = join(SERVICES, `${process.pid}-${++serviceCount}.sock`);
  rmSync(socketPath, { force: true });
  const child = spawn('podman', [...ROOT_FLAGS, 'system', 'service', '--time=0', `unix://${socketPath}`], {
    env: PODMAN_ENV,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const record = join(SERVICES, `${child.pid}.pid`);
  writeFileSync(record, `${process.pid}\n${socketPath}\n`);
  const stop = async () => {
    await stopChild(child);
    rmSync(record, { force: true });
    rmSync(socketPath, { force: true });
  };
  const docker = new Dockerode({ socketPath });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`podman system service exited at once: ${stderr.trim().split('\n').at(-1) ?? ''}`);
    }
    if (
      (await canConnect(socketPath)) &&
      (await docker.ping().then(
        () => true,
        () => false,
      ))
    )
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`podman system service did not answer on ${socketPath} within 15 s: ${stderr.trim()}`);
    }
    await delay(20);
  }
  return { socketPath, docker, stop };
}

function canConnect(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** SIGTERM by pid, a few seconds' grace, then SIGKILL. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function removeLeftoverContainers(docker: Dockerode): Promise<void> {
  const leftovers = await docker.listContainers({ all: true, filters: { label: [OWNER_LABEL] } });
  await Promise.all(
    leftovers
      .filter((c) => !alive(Number(c.Labels[OWNER_LABEL])))
      .map((c) =>
        docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined),
      ),
  );
}

/** Can a container start here at all? Says what the runtime answered when not. */
async function smokeTest(docker: Dockerode): Promise<void> {
  const container = await docker
    .createContainer(testContainerOptions({ Cmd: ['true'] }))
    .catch((err: Error) => Promise.reject(new Error(`podman could not create a container: ${err.message}`)));
  try {
    await container.start();
  } catch (err) {
    throw new Error(`podman could not start a container: ${(err as Error).message}`);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

/** Create options for a test container: the test image, no network (faster), an init, labelled with our pid. */
export function testContainerOptions(extra: Dockerode.ContainerCreateOptions = {}): Dockerode.ContainerCreateOptions {
  return {
    Image: TEST_IMAGE,
    ...extra,
    Labels: { [OWNER_LABEL]: String(process.pid), ...extra.Labels },
    HostConfig: { Init: true, NetworkMode: 'none', ...extra.HostConfig },
  };
}
