// The manager with a DockerExecutor: an exec_command runs in the container, and shutdown ends its sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Dockerode from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker.js';
import { UnifiedExecManager, sequentialIds } from '../../src/index.js';
import { execIn, podmanForFile, startContainer, type ReadyPodman } from './helpers.js';
import { TEST_IMAGE } from './podman.js';

const { podman, title, skip } = await podmanForFile('UnifiedExecManager with a DockerExecutor');

describe.skipIf(skip)(title, () => {
  let docker: Dockerode;
  let container: Dockerode.Container;
  let manager: UnifiedExecManager;

  beforeAll(async () => {
    docker = (podman as ReadyPodman).docker;
    container = await startContainer(docker, { Hostname: 'in-the-box' });
    manager = new UnifiedExecManager({
      executor: new DockerExecutor({ docker, container: container.id }),
      sandbox: 'danger-full-access',
      idGenerator: sequentialIds(),
    });
  });
  afterAll(() => manager?.shutdown());

  it('runs exec_command in the container', async () => {
    const reply = await manager.execCommand({ command: 'echo hi; hostname', login: false });
    expect(reply).toMatchObject({ exitCode: 0, output: 'hi\nin-the-box\n' });
  });

  it('runs the one-shot shell tool in the container too, and a timeout ends what it started there', async () => {
    const reply = await manager.shell({ command: ['sh', '-c', 'hostname; echo err >&2; exit 3'] });
    expect(reply).toMatchObject({ exitCode: 3, output: 'in-the-box\nerr\n', timedOut: false });
    const timedOut = await manager.shell({
      command: ['sh', '-c', 'sleep 303 & echo "child=$!"; wait'],
      timeoutMs: 1_000,
    });
    expect(timedOut).toMatchObject({ exitCode: 124, timedOut: true });
    const [, child] = /child=(\d+)/.exec(timedOut.output) ?? [];
    expect(child).toBeDefined();
    const probe = await execIn(docker, container, `kill -0 ${child} 2>/dev/null && echo alive || echo gone`);
    expect(probe.text).toBe('gone\n');
  });

  it('keeps a live session, types into it, and ends it on shutdown', async () => {
    const started = await manager.execCommand({
      command: 'sleep 304 & echo "child=$!"; read line; echo "got $line"; wait',
      shell: '/bin/sh',
      login: false,
      tty: true,
      yieldTimeMs: 500,
    });
    expect(started.sessionId).toBeDefined();
    const [, child] = /child=(\d+)/.exec(started.output) ?? [];
    const typed = await manager.writeStdin({ sessionId: started.sessionId!, chars: 'hello\n', yieldTimeMs: 500 });
    expect(typed.output).toContain('got hello');
    expect(manager.listSessions()).toEqual([expect.objectContaining({ location: `docker://${container.id}` })]);
    await manager.shutdown();
    const probe = await execIn(docker, container, `kill -0 ${child} 2>/dev/null && echo alive || echo gone`);
    expect(probe.text).toBe('gone\n');
  });

  it('takes executors by URL: docker:// execs in that container, docker-image:// makes one for the client and removes it at shutdown', async () => {
    const socket = (podman as ReadyPodman).socketPath;
    const client = new UnifiedExecManager({
      executors: {
        box: `docker://${container.id}?socket=${socket}`,
        fresh: `docker-image://${TEST_IMAGE}?socket=${socket}`,
      },
      sandbox: 'danger-full-access',
    });
    try {
      expect((await client.execCommand({ command: 'hostname', login: false })).output).toBe('in-the-box\n');
      const made = await client.execCommand({ command: 'hostname', login: false, executor: 'fresh' });
      expect(made).toMatchObject({ exitCode: 0 });
      const id = made.output.trim();
      expect(id).not.toBe('in-the-box');
      const live = await client.execCommand({ command: 'sleep 30', login: false, executor: 'fresh', yieldTimeMs: 250 });
      const [listed] = client.listSessions().filter((s) => s.sessionId === live.sessionId);
      expect(listed?.location).toMatch(new RegExp(`^docker-image://${TEST_IMAGE} \\(container [0-9a-f]{12}\\)$`));
      const labelled = () => docker.listContainers({ all: true, filters: { label: ['unified-exec=1'] } });
      expect((await labelled()).some((c) => c.Id.startsWith(id) || listed!.location.includes(c.Id.slice(0, 12)))).toBe(
        true,
      );
      await client.shutdown();
      expect((await labelled()).filter((c) => listed!.location.includes(c.Id.slice(0, 12)))).toEqual([]);
    } finally {
      await client.shutdown();
    }
  });
});
