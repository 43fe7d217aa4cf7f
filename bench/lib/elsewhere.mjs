/**
 * Where the "sessions elsewhere" drivers run their sessions, each set up with the test suite's own code (loaded by
 * test-modules.mjs) and registered for cleanup:
 * - `ours`: `unified-exec exec-server --listen ws://127.0.0.1:0` from dist/ (test/codex/our-exec-server.ts);
 * - `codex`: the real `codex exec-server` with a fresh CODEX_HOME under /var/tmp (test/codex/real-exec-server.ts);
 * - `container`: a running container of the Podman test image, on a private `podman system service`
 *   (test/containers/podman.ts), reached with `docker://` exec through DockerExecutor.
 * Each server or service runs as a child of the worker with the run's marker in its environment.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { DockerExecutor, RemoteExecutor } from '../../dist/lib/index.js';
import { trackStop } from './cleanup.mjs';
import { importTestModule } from './test-modules.mjs';

/** Why the real Codex exec-server cannot run here (undefined: it can); the runner skips its rows with it. */
export async function codexUnavailable() {
  try {
    const { codexAvailability } = await importTestModule('test/codex/codex-install.ts');
    return codexAvailability();
  } catch (err) {
    return `the Codex launcher could not be loaded: ${err.message}`;
  }
}

/** Starts one exec-server (`ours` or `codex`) on loopback; stopped at cleanup. Returns { url, pid }. */
export async function startExecServer(kind) {
  const server =
    kind === 'codex'
      ? await (await importTestModule('test/codex/real-exec-server.ts')).startRealExecServer()
      : await (await importTestModule('test/codex/our-exec-server.ts')).startOurExecServer();
  trackStop(() => server.stop());
  return server;
}

/** The container a keepalive loop holds up until it is removed (test/containers/helpers.ts does the same). */
const KEEPALIVE = ['/bin/sh', '-c', 'while sleep 3600; do :; done'];

/**
 * Podman's service and a running container of the test image; `{ skipped }` with Podman's reason when it cannot
 * run here. Returns the executor for `docker://<id>`, which the caller's manager uses and cleanup closes.
 */
async function startContainer() {
  const podman = await importTestModule('test/containers/podman.ts');
  const service = await podman.startPodman();
  if (!service.available) return { skipped: `podman cannot run here: ${service.reason}` };
  trackStop(() => service.stop());
  const container = await service.docker.createContainer(
    podman.testContainerOptions({ Entrypoint: KEEPALIVE, Cmd: [] }),
  );
  trackStop(async () => {
    await container.remove({ force: true });
    endExecMonitors(container.id);
  });
  await container.start();
  const executor = new DockerExecutor({ docker: { socketPath: service.socketPath }, container: container.id });
  trackStop(() => executor.close());
  return { executor, setupMs: service.setupMs, socketPath: service.socketPath };
}

/**
 * The `executors` setting of a manager whose sessions run at `where` (`local`, `ours`, `codex`, `container`; an
 * exec-server's client with `binaryOutput` when given), and whether that place reports input-wait (else a live call answers at its deadline). `{ skipped }` when it cannot run.
 */
export async function executorsFor(where, { binaryOutput } = {}) {
  if (where === 'local') return { executors: { local: 'local' }, inputWait: true };
  if (where === 'ours' || where === 'codex') {
    const server = await startExecServer(where);
    // A URL: the manager makes the RemoteExecutor and closes it at shutdown; a client option needs one made here.
    const executor =
      binaryOutput === undefined
        ? server.executorUrl
        : new RemoteExecutor({ url: server.url, ...(server.token ? { token: server.token } : {}), binaryOutput });
    if (typeof executor !== 'string') trackStop(() => executor.close());
    return { executors: { [where]: executor }, inputWait: where === 'ours', serverPid: server.pid };
  }
  if (where === 'container') {
    const started = await startContainer();
    if (started.skipped) return started;
    return { executors: { [where]: started.executor }, inputWait: false };
  }
  throw new Error(`unknown place ${where}`);
}

/**
 * Podman keeps the conmon of every exec for 300 s after the exec ended (containers.conf `exit_command_delay`, which
 * podman 4.3 offers no way to override beside the test suite's own file), even once the container is removed. The
 * ones of our container, known by its id on their command line (`-c <id>`), are ended by pid.
 */
function endExecMonitors(containerId) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let args;
    try {
      args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone
    }
    if (!args[0]?.endsWith('conmon') || args[args.indexOf('-c') + 1] !== containerId) continue;
    try {
      process.kill(Number(name), 'SIGTERM');
    } catch {
      // gone meanwhile
    }
  }
}
