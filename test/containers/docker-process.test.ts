// DockerProcess against a fake exec: output handed over in order, the exit after it, writes, resizes, lost exits.
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type Dockerode from 'dockerode';
import { DockerProcess, type ContainerLink } from '../../src/executors/docker-process.js';
import type { ExitInfo } from '../../src/spawn/types.js';

/** Docker's frame for a multiplexed stream: type (1 stdout, 2 stderr), three zero bytes, length, payload. */
function frame(type: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header.writeUInt8(type, 0);
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** A minimal demultiplexer (what dockerode's modem.demuxStream does), so these tests need no engine. */
function demux(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void {
  let pending = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 8 && pending.length >= 8 + pending.readUInt32BE(4)) {
      const length = pending.readUInt32BE(4);
      (pending[0] === 2 ? stderr : stdout).write(pending.subarray(8, 8 + length));
      pending = pending.subarray(8 + length);
    }
  });
}

function fakeProcess(
  options: {
    tty?: boolean;
    stdin?: boolean;
    inspect?: () => Promise<Partial<Dockerode.ExecInspectInfo>>;
    whyGone?: ContainerLink['whyGone'];
  } = {},
) {
  const stream = new PassThrough();
  const calls: string[] = [];
  const exec = {
    inspect: options.inspect ?? (() => Promise.resolve({ Running: false, ExitCode: 0 })),
    resize: (size: { h: number; w: number }) => {
      calls.push(`resize ${size.w}x${size.h}`);
      // Podman's 201, which dockerode reports as an error.
      return Promise.reject(Object.assign(new Error('(HTTP code 201) unexpected'), { statusCode: 201 }));
    },
  } as unknown as Dockerode.Exec;
  const link: ContainerLink = {
    name: 'web-1',
    whyGone: options.whyGone ?? (() => Promise.resolve(undefined)),
    killTree: () => {
      calls.push('killTree');
      stream.end();
      return Promise.resolve();
    },
  };
  stream.on('data', (chunk: Buffer) => calls.push(`input ${chunk.toString()}`));
  const proc = new DockerProcess({
    exec,
    stream,
    tty: options.tty ?? false,
    stdin: options.stdin ?? options.tty ?? false,
    tag: 't.1',
    link,
    demux: demux as never,
  });
  return { proc, stream, calls };
}

describe('DockerProcess', () => {
  it('gives output that came before the first listener to it, in order, and the exit after all of it', async () => {
    const { proc, stream } = fakeProcess();
    stream.push(frame(1, 'one\n'));
    stream.push(frame(2, 'two\n'));
    await new Promise((resolve) => setImmediate(resolve));
    const seen: string[] = [];
    proc.onData((chunk) => seen.push(chunk.toString()));
    stream.push(frame(1, 'three\n'));
    const exit = new Promise<ExitInfo>((resolve) => proc.onExit(resolve));
    stream.push(null);
    expect(await exit).toEqual({ exitCode: 0 });
    expect(seen).toEqual(['one\n', 'two\n', 'three\n']);
    expect(proc.pid).toBeUndefined();
  });

  it('keeps output that came before any listener for the first one, even after the exit, stream by stream', async () => {
    const { proc, stream } = fakeProcess();
    const exits: ExitInfo[] = [];
    proc.onExit((info) => exits.push(info));
    stream.end(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')]));
    await vi.waitFor(() => expect(exits).toEqual([{ exitCode: 0 }]));
    expect(proc.exitInfo).toEqual({ exitCode: 0 });
    const seen: string[] = [];
    proc.onData((chunk, from) => seen.push(`${from}:${chunk.toString()}`));
    // Handed over before onData returns: a caller that reads exitInfo next has the whole output already.
    expect(seen).toEqual(['stdout:out\n', 'stderr:err\n']);
    const later: string[] = [];
    proc.onData((chunk) => later.push(chunk.toString()));
    expect(later).toEqual([]);
  });

  it('refuses input on pipes without stdin', async () => {
    const { proc } = fakeProcess();
    await expect(proc.write('x')).rejects.toThrow('stdin is closed for this session');
  });

  it('sends input typed after a resize only once the resize is done, and accepts 201', async () => {
    const { proc, calls } = fakeProcess({ tty: true });
    proc.onData(() => undefined);
    proc.resize(100, 30);
    await proc.write('stty size\r');
    expect(calls).toEqual(['resize 100x30', 'input stty size\r']);
  });

  it('reports a process whose container went away as lost', async () => {
    const { proc, stream } = fakeProcess({
      inspect: () => Promise.reject(Object.assign(new Error('no such exec'), { statusCode: 404 })),
      whyGone: () => Promise.resolve('container web-1 was removed while the command ran'),
    });
    const exit = new Promise<ExitInfo>((resolve) => proc.onExit(resolve));
    stream.end();
    expect(await exit).toEqual({ exitCode: 137, lost: 'container web-1 was removed while the command ran' });
  });

  it('terminates once however often it is asked, and is done when the exec is', async () => {
    const { proc, calls } = fakeProcess({ inspect: () => Promise.resolve({ Running: false, ExitCode: 143 }) });
    await Promise.all([proc.terminate(), proc.terminate()]);
    await proc.terminate();
    expect(calls.filter((c) => c === 'killTree')).toHaveLength(1);
    expect(proc.exitInfo).toEqual({ exitCode: 143 });
  });
});
