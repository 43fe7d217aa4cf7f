// Shared by the container tests: Podman once per file, containers that are removed after the file, and small
// readers of a process's output.
import { afterAll, expect, vi } from 'vitest';
import type Dockerode from 'dockerode';
import type { ExecProcess, ExitInfo, SpawnOptions } from '../../src/spawn/types.js';
import { startPodman, testContainerOptions, type Podman } from './podman.js';

export type ReadyPodman = Extract<Podman, { available: true }>;

/** Starts Podman for this test file (stopped after it) and names the suite, with the reason when it is skipped. */
export async function podmanForFile(suite: string): Promise<{ podman: Podman; title: string; skip: boolean }> {
  const podman = await startPodman();
  afterAll(async () => {
    await Promise.all(made.splice(0).map((c) => c.remove({ force: true }).catch(() => undefined)));
    if (podman.available) await podman.stop();
  });
  const title = podman.available ? suite : `${suite} (skipped: ${podman.reason})`;
  return { podman, title, skip: !podman.available };
}

const made: Dockerode.Container[] = [];
/** The entrypoint of a test container: stays up until removed. */
const KEEPALIVE = ['/bin/sh', '-c', 'while sleep 3600; do :; done'];

/** A running test container, removed after the file. */
export async function startContainer(
  docker: Dockerode,
  extra: Dockerode.ContainerCreateOptions = {},
): Promise<Dockerode.Container> {
  const container = await docker.createContainer(testContainerOptions({ Entrypoint: KEEPALIVE, Cmd: [], ...extra }));
  made.push(container);
  await container.start();
  return container;
}

/** Runs a shell script in the container from outside any session: what a person checking on it would see. */
export async function execIn(
  docker: Dockerode,
  container: Dockerode.Container,
  script: string,
): Promise<{ exitCode: number | null; text: string }> {
  const exec = await container.exec({ Cmd: ['sh', '-c', script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  let text = '';
  const sink = { write: (chunk: Buffer) => (text += chunk.toString()) } as unknown as NodeJS.WritableStream;
  docker.modem.demuxStream(stream, sink, sink);
  await new Promise((resolve) => stream.once('end', resolve));
  return { exitCode: (await exec.inspect()).ExitCode, text };
}

/** Everything a process printed so far, kept as it comes. */
export function recorder(proc: ExecProcess): { text(): string; exit: Promise<ExitInfo> } {
  let text = '';
  proc.onData((chunk) => (text += chunk.toString()));
  // The exit is told once, to the listeners of the moment: a command that ended before this was called (`echo`,
  // spawned before a second one was awaited) has told it already, and only exitInfo holds it.
  const exit = new Promise<ExitInfo>((resolve) =>
    proc.exitInfo === undefined ? proc.onExit(resolve) : resolve(proc.exitInfo),
  );
  return { text: () => text, exit };
}

/** Waits until the recorded output matches. */
export async function waitForOutput(out: { text(): string }, pattern: RegExp, timeout = 10_000): Promise<string> {
  await vi.waitFor(() => expect(out.text()).toMatch(pattern), { timeout, interval: 20 });
  return out.text();
}

/** Spawn options with the fields every call needs. */
export function spawnOptions(argv: string[], more: Partial<SpawnOptions> = {}): SpawnOptions {
  return { argv, cwd: '', env: {}, tty: false, ...more };
}
