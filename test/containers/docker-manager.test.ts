// The manager with a DockerExecutor: an exec_command runs in the container, and shutdown ends its sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Dockerode from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker.js';
import { UnifiedExecManager, sequentialIds } from '../../src/index.js';
import { execIn, podmanForFile, startContainer, type ReadyPodman } from './helpers.js';

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
    const reply = await manager.execCommand({ cmd: 'echo hi; hostname', login: false });
    expect(reply).toMatchObject({ exitCode: 0, output: 'hi\nin-the-box\n' });
  });

  it('keeps a live session, types into it, and ends it on shutdown', async () => {
    const started = await manager.execCommand({
      cmd: 'sleep 304 & echo "child=$!"; read line; echo "got $line"; wait',
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
});
