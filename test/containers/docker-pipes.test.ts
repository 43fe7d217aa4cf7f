// Pipe sessions, the environment and the working directory in a real Podman container through the Docker API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Dockerode from 'dockerode';
import { DockerExecutor } from '../../src/executors/docker.js';
import { SESSION_ENV, buildEnv } from '../../src/spawn/env.js';
import {
  execIn,
  podmanForFile,
  recorder,
  spawnOptions,
  startContainer,
  waitForOutput,
  type ReadyPodman,
} from './helpers.js';

const { podman, title, skip } = await podmanForFile('DockerExecutor on pipes');

/** The container's own PATH, unlike any this machine has. */
const CONTAINER_PATH = '/opt/container-only/bin:/usr/sbin:/usr/bin:/sbin:/bin';

describe.skipIf(skip)(title, () => {
  let executor: DockerExecutor;
  let container: Dockerode.Container;

  beforeAll(async () => {
    const { docker } = podman as ReadyPodman;
    container = await startContainer(docker, {
      Env: [`PATH=${CONTAINER_PATH}`, 'CONTAINER_ONLY=yes'],
      WorkingDir: '/srv',
    });
    await execIn(docker, container, 'mkdir -p /srv/sub');
    executor = new DockerExecutor({ docker, container: container.id });
  });
  afterAll(() => executor?.close());

  async function run(argv: string[], more: Parameters<typeof spawnOptions>[1] = {}) {
    const proc = await executor.spawn(spawnOptions(argv, more));
    const out = recorder(proc);
    const exit = await out.exit;
    await proc.terminate();
    return { exit, text: out.text(), proc };
  }

  it('is an executor elsewhere whose box is the container: it lays no sandbox and applies no patch here', async () => {
    expect('appliesPatches' in executor).toBe(false);
    expect(executor.location).toMatch(/^docker:\/\/[0-9a-f]{64}$/);
    const started = await executor.start({
      command: { script: 'echo in-box', shell: '/bin/sh', login: false },
      workdir: undefined,
      defaultWorkdir: '/nowhere-on-this-machine',
      env: {},
      tty: false,
      sandbox: { mode: 'read-only', network: 'off', allowedDomains: [], workspace: '/', writableRoots: [] },
    });
    expect(started.sandbox).toBeUndefined();
    const out: Buffer[] = [];
    started.process.onData((chunk) => out.push(chunk));
    await new Promise((resolve) => started.process.onExit(resolve));
    expect(Buffer.concat(out).toString()).toBe('in-box\n');
  });

  it('keeps stdout and stderr in the order they came, and reports the exit code', async () => {
    const { exit, text } = await run([
      'sh',
      '-c',
      'echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three; exit 3',
    ]);
    expect(exit).toEqual({ exitCode: 3 });
    expect(text).toBe('one\ntwo\nthree\n');
  });

  it('gives a pipe session a closed stdin and refuses writes', async () => {
    const proc = await executor.spawn(spawnOptions(['sh', '-c', 'cat; echo "cat ended"']));
    const out = recorder(proc);
    await expect(proc.write('x')).rejects.toThrow('stdin is closed for this session');
    expect(await out.exit).toEqual({ exitCode: 0 });
    expect(out.text()).toBe('cat ended\n');
    await proc.terminate();
  });

  it('keeps stdin open with pipeStdin', async () => {
    const proc = await executor.spawn(spawnOptions(['cat'], { pipeStdin: true }));
    const out = recorder(proc);
    await proc.write('typed\n');
    await waitForOutput(out, /^typed\n$/);
    await proc.terminate();
    expect(proc.exitInfo?.exitCode).toBe(143);
  });

  it("sends the session variables and the policy's own, over the container's environment, and nothing of this machine's", async () => {
    const marker = `UNIFIED_EXEC_LEAK_${process.pid}`;
    process.env[marker] = 'leaked';
    try {
      const withPolicy = await run(['env'], { env: buildEnv(), envPolicy: { set: { CHOSEN: 'yes' } } });
      const vars = Object.fromEntries(
        withPolicy.text
          .trim()
          .split('\n')
          .map((line) => line.split(/=(.*)/s)),
      );
      expect(vars).toMatchObject({ ...SESSION_ENV, CHOSEN: 'yes', PATH: CONTAINER_PATH, CONTAINER_ONLY: 'yes' });
      expect(vars.UNIFIED_EXEC_TAG).toMatch(/\S/);
      expect(withPolicy.text).not.toContain(marker);
      expect(withPolicy.text).not.toContain(`PATH=${process.env.PATH}\n`);

      const without = await run(['env'], { env: buildEnv() });
      expect(without.text).toContain('NO_COLOR=1\n');
      expect(without.text).toContain(`PATH=${CONTAINER_PATH}\n`);
      expect(without.text).not.toContain('CHOSEN');
      expect(without.text).not.toContain(marker);
    } finally {
      delete process.env[marker];
    }
  });

  it("starts in the container's working directory, an absolute one, or one relative to the container's", async () => {
    expect((await run(['pwd'])).text).toBe('/srv\n');
    expect((await run(['pwd'], { cwd: '/tmp' })).text).toBe('/tmp\n');
    expect((await run(['pwd'], { cwd: 'sub' })).text).toBe('/srv/sub\n');
    expect((await run(['pwd'], { cwd: '../srv/sub/' })).text).toBe('/srv/sub\n');
  });

  it('rejects a working directory the container does not have, saying so', async () => {
    await expect(executor.spawn(spawnOptions(['pwd'], { cwd: '/no/such/dir' }))).rejects.toThrow(
      /^the working directory \/no\/such\/dir does not exist in container [0-9a-f]{64} \(or is not a directory\): pass an existing `workdir`$/,
    );
    await expect(executor.spawn(spawnOptions(['pwd'], { cwd: '/no/such/dir', tty: true }))).rejects.toThrow(
      /working directory \/no\/such\/dir does not exist/,
    );
  });

  it('rejects a program the container does not have, saying so', async () => {
    await expect(executor.spawn(spawnOptions(['/bin/zsh', '-c', 'true']))).rejects.toThrow(
      /^\/bin\/zsh was not found in container [0-9a-f]{64}: check that the image has it/,
    );
  });

  it('reports a program that exits 127 by itself as an exit, not a failure to start', async () => {
    const { exit, text } = await run(['sh', '-c', 'no-such-command']);
    expect(exit).toEqual({ exitCode: 127 });
    expect(text).toMatch(/no-such-command: not found/);
  });
});
