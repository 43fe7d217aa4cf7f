// How container sessions end: terminate, close, a container made from an image, a container or engine that goes
// away, and spawns that cannot start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Dockerode from 'dockerode';
import { CONTAINER_LABEL, DockerExecutor } from '../../src/executors/docker.js';
import {
  execIn,
  podmanForFile,
  recorder,
  spawnOptions,
  startContainer,
  waitForOutput,
  type ReadyPodman,
} from './helpers.js';
import { OWNER_LABEL, TEST_IMAGE, startPodman } from './podman.js';

const { podman, title, skip } = await podmanForFile('DockerExecutor lifecycle');

describe.skipIf(skip)(title, () => {
  let docker: Dockerode;
  let container: Dockerode.Container;
  let executor: DockerExecutor;

  beforeAll(async () => {
    docker = (podman as ReadyPodman).docker;
    container = await startContainer(docker);
    executor = new DockerExecutor({ docker, container: container.id });
  });
  afterAll(() => executor?.close());

  /** Which of `pids` still run in `target` (zombies do not count; the init reaps them). */
  async function stillRunning(target: Dockerode.Container, pids: string[]): Promise<string> {
    const script = pids.map((p) => `kill -0 ${p} 2>/dev/null && echo ${p}`).join('; ');
    return (await execIn(docker, target, `${script}; true`)).text;
  }

  it('terminate ends the whole tree: a background child and one that left the session', async () => {
    const proc = await executor.spawn(
      // The leader sleeps in the foreground: SIGTERM is what ends it, whichever of the tree it reaches first.
      spawnOptions(['sh', '-c', 'sleep 300 & echo "child=$!"; setsid sleep 301 & echo "escaped=$!"; exec sleep 299']),
    );
    const out = recorder(proc);
    const text = await waitForOutput(out, /escaped=\d+/);
    const pids = [...text.matchAll(/=(\d+)/g)].map((m) => m[1] ?? '');
    expect(await stillRunning(container, pids)).toBe(`${pids.join('\n')}\n`);

    await Promise.all([proc.terminate(), proc.terminate()]);
    expect(proc.exitInfo).toEqual({ exitCode: 143 });
    expect(await stillRunning(container, pids)).toBe('');
    await proc.terminate(); // and once more after it is done
  });

  it('terminate after the command exited still ends what it left running', async () => {
    const proc = await executor.spawn(spawnOptions(['sh', '-c', 'sleep 302 >/dev/null 2>&1 & echo "child=$!"']));
    const out = recorder(proc);
    expect(await out.exit).toEqual({ exitCode: 0 });
    const [, child = ''] = /child=(\d+)/.exec(out.text()) ?? [];
    expect(await stillRunning(container, [child])).toBe(`${child}\n`);
    await proc.terminate();
    expect(await stillRunning(container, [child])).toBe('');
  });

  it('makes one container from an image on the first spawn, and close() removes it', async () => {
    const owner = { [OWNER_LABEL]: String(process.pid) };
    const fromImage = new DockerExecutor({
      docker,
      image: TEST_IMAGE,
      createOptions: { Labels: { ...owner, 'test.case': 'image' }, HostConfig: { NetworkMode: 'none' } },
    });
    const mine = () =>
      docker.listContainers({
        all: true,
        filters: { label: [`${CONTAINER_LABEL}=1`, 'test.case=image', `${OWNER_LABEL}=${process.pid}`] },
      });
    expect(fromImage.location).toBe(`docker-image://${TEST_IMAGE}`);
    expect(await mine()).toEqual([]);

    const first = await fromImage.spawn(spawnOptions(['sh', '-c', 'echo first']));
    const long = await fromImage.spawn(spawnOptions(['sleep', '300']));
    const firstOut = recorder(first);
    expect(await firstOut.exit).toEqual({ exitCode: 0 });
    expect(firstOut.text()).toBe('first\n');
    const made = await mine();
    expect(made).toHaveLength(1);
    expect(made[0]?.State).toBe('running');
    expect(fromImage.location).toBe(`docker-image://${TEST_IMAGE} (container ${made[0]?.Id.slice(0, 12)})`);

    await fromImage.close();
    expect(long.exitInfo).toEqual({ exitCode: 143 });
    expect(await mine()).toEqual([]);
    await expect(fromImage.spawn(spawnOptions(['true']))).rejects.toThrow(/is closed/);
    await fromImage.close(); // safe twice
  });

  it.each([
    ['a terminal', 'removed', true, /^container [0-9a-f]{64} was removed while the command ran$/],
    ['pipes', 'removed', false, /^container [0-9a-f]{64} was removed while the command ran$/],
    [
      'pipes',
      'stopped',
      false,
      /^container [0-9a-f]{64} stopped \((exited|stopped), exit code \d+\), ending the command$/,
    ],
  ])('ends a live session on %s with `lost` when its container is %s', async (_on, fate, tty, lost) => {
    const doomed = await startContainer(docker);
    const onDoomed = new DockerExecutor({ docker, container: doomed.id });
    const proc = await onDoomed.spawn(spawnOptions(['sh', '-c', 'echo up; sleep 300'], { tty }));
    const out = recorder(proc);
    await waitForOutput(out, /up/);
    await (fate === 'removed' ? doomed.remove({ force: true }) : doomed.stop({ t: 0 }));
    const exit = await out.exit;
    expect(exit).toEqual({ exitCode: 137, lost: expect.stringMatching(lost) });
    expect(exit.lost).toContain(doomed.id);
    await proc.terminate();
    await onDoomed.close();
  });

  it('ends a live session with `lost` when the engine goes away', async () => {
    const second = await startPodman();
    if (!second.available) throw new Error(second.reason);
    const viaSecond = new DockerExecutor({ docker: { socketPath: second.socketPath }, container: container.id });
    const proc = await viaSecond.spawn(spawnOptions(['sh', '-c', 'echo up; sleep 303']));
    const out = recorder(proc);
    await waitForOutput(out, /up/);
    await second.stop();
    const exit = await out.exit;
    expect(exit.exitCode).toBe(137);
    expect(exit.lost).toBe(
      `the Docker engine at unix://${second.socketPath} stopped answering (ENOENT); the command may still run in container ${container.id}`,
    );
    await proc.terminate();
    await viaSecond.close();
  });

  it('rejects a spawn into a container that does not exist, or is not running, saying what to check', async () => {
    const socket = (podman as ReadyPodman).socketPath;
    const missing = new DockerExecutor({ docker, container: 'unified-exec-no-such-container' });
    await expect(missing.spawn(spawnOptions(['true']))).rejects.toThrow(
      `container unified-exec-no-such-container was not found on the Docker engine at unix://${socket}: check its name or id (docker ps)`,
    );
    const stopped = await docker.createContainer({
      Image: TEST_IMAGE,
      Cmd: ['true'],
      Labels: { [OWNER_LABEL]: String(process.pid) },
    });
    try {
      const onStopped = new DockerExecutor({ docker, container: stopped.id });
      await expect(onStopped.spawn(spawnOptions(['true']))).rejects.toThrow(
        new RegExp(`^container ${stopped.id} is not running \\(.*\\): start it \\(docker start ${stopped.id}\\)$`),
      );
    } finally {
      await stopped.remove({ force: true });
    }
  });

  it('rejects a spawn from an image the engine does not have, saying what to check', async () => {
    const image = 'localhost/unified-exec-no-such-image:1';
    const noImage = new DockerExecutor({ docker, image });
    await expect(noImage.spawn(spawnOptions(['true']))).rejects.toThrow(
      `image ${image} is not on the Docker engine at unix://${(podman as ReadyPodman).socketPath}: check its name, or pull it first (docker pull ${image})`,
    );
    await noImage.close();
  });

  it('rejects being made with both or neither of container and image', () => {
    expect(() => new DockerExecutor({ docker } as never)).toThrow(/exactly one of `container`/);
  });
});
