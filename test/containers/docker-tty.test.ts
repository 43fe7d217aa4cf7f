// Terminal sessions in a real Podman container through the Docker API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerExecutor } from '../../src/executors/docker.js';
import { podmanForFile, recorder, spawnOptions, startContainer, waitForOutput, type ReadyPodman } from './helpers.js';

const { podman, title, skip } = await podmanForFile('DockerExecutor with a terminal');

describe.skipIf(skip)(title, () => {
  let executor: DockerExecutor;

  beforeAll(async () => {
    const { docker } = podman as ReadyPodman;
    const container = await startContainer(docker);
    executor = new DockerExecutor({ docker, container: container.id });
  });
  afterAll(() => executor?.close());

  it('runs a command in a terminal of 80x24 by default', async () => {
    const proc = await executor.spawn(spawnOptions(['sh', '-c', 'echo hi; stty size; tty'], { tty: true }));
    const out = recorder(proc);
    expect(await out.exit).toEqual({ exitCode: 0 });
    expect(out.text()).toMatch(/^hi\r\n24 80\r\n\/dev\/pts\/\d+\r\n$/);
    expect(proc.pid).toBeUndefined();
    expect(proc.reportedInputWait).toBeUndefined();
    await proc.terminate();
  });

  it('starts at the size asked for, and resizes', async () => {
    const proc = await executor.spawn(
      spawnOptions(['sh', '-c', 'stty size; read line; stty size'], { tty: true, cols: 120, rows: 40 }),
    );
    const out = recorder(proc);
    await waitForOutput(out, /40 120\r\n/);
    proc.resize(100, 30);
    await proc.write('\r');
    expect(await out.exit).toEqual({ exitCode: 0 });
    expect(out.text()).toMatch(/40 120\r\n\r\n30 100\r\n$/);
    await proc.terminate();
  });

  it('echoes what is typed into cat, and ^C ends it', async () => {
    const proc = await executor.spawn(spawnOptions(['cat'], { tty: true }));
    const out = recorder(proc);
    await proc.write('hello\r');
    // The terminal echoes the line, then cat prints it.
    await waitForOutput(out, /hello\r\nhello\r\n/);
    await proc.write('\x03');
    expect(await out.exit).toEqual({ exitCode: 130 });
    await proc.terminate();
  });

  it('keeps output that comes before anyone listens', async () => {
    const proc = await executor.spawn(spawnOptions(['sh', '-c', 'echo early; sleep 0.3; echo late'], { tty: true }));
    // The exec starts before spawn resolves; wait past the first line before listening.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const out = recorder(proc);
    await out.exit;
    expect(out.text()).toBe('early\r\nlate\r\n');
    await proc.terminate();
  });

  it('ends an interactive shell and the job it put in the background', async () => {
    const proc = await executor.spawn(spawnOptions(['bash', '--norc', '--noprofile', '-i'], { tty: true }));
    const out = recorder(proc);
    await proc.write('sleep 301 & echo "job=$!"\r');
    const [, job] = /job=(\d+)/.exec(await waitForOutput(out, /job=\d+/)) ?? [];
    await proc.terminate();
    expect(proc.exitInfo?.exitCode).toBe(129); // SIGHUP: interactive bash ignores SIGTERM
    const probe = await executor.spawn(
      spawnOptions(['sh', '-c', `kill -0 ${job} 2>/dev/null && echo alive || echo gone`]),
    );
    const probeOut = recorder(probe);
    await probeOut.exit;
    expect(probeOut.text()).toBe('gone\n');
    await probe.terminate();
  });
});
