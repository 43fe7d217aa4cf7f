import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildEnv } from '../../src/spawn/env.js';
import { PtyProcess } from '../../src/spawn/pty-process.js';
import { nativeHelpers } from '../../src/util/native-addon.js';
import { PATIENT, busyWait, isAlive, printedPid, waitUntilGone } from '../helpers/processes.js';
import { useProcesses } from '../helpers/spawn.js';

const spawn = useProcesses();
const BURST = "head -c 1000000 /dev/zero | tr '\\0' a";
/** The write(2) syscall number as /proc/<pid>/syscall shows it, where we know it. */
const WRITE_SYSCALL = ({ x64: 1, arm64: 64 } as Record<string, number>)[process.arch];

/**
 * Starts a shell that prints `ready`, then `written` half a second later, and stops its output with ^S once `ready`
 * came: resolves when the shell is blocked writing `written` to the stopped terminal.
 */
async function stoppedBeforeWritten() {
  const started = await spawn.pty('printf ready; sleep 0.5; printf written; exec sleep 1000');
  const { proc, output } = started;
  await vi.waitFor(() => expect(output()).toBe('ready'), PATIENT);
  await proc.write('\u0013');
  const syscall = () => readFileSync(`/proc/${proc.pid}/syscall`, 'utf8').split(' ')[0];
  await vi.waitFor(() => expect(syscall()).toBe(String(WRITE_SYSCALL)), PATIENT);
  return started;
}

describe('PtyProcess', () => {
  it('opens an 80x24 terminal by default', async () => {
    const { output } = await (await spawn.pty('stty size')).exited;
    expect(output).toBe('24 80\r\n');
  });

  it('opens a terminal of the requested size', async () => {
    const { output } = await (await spawn.pty('stty size', { cols: 132, rows: 50 })).exited;
    expect(output).toBe('50 132\r\n');
  });

  it('reports a new size after resize()', async () => {
    // The resize sends SIGWINCH, which can interrupt bash's read: read again until a line comes.
    const { proc, exited } = await spawn.pty('until read -r; do :; done; stty size');
    proc.resize(100, 40);
    await proc.write('\n');
    expect((await exited).output).toContain('40 100\r\n');
  });

  it('is a terminal for stdin and stdout', async () => {
    const { output } = await (await spawn.pty('[ -t 0 ] && [ -t 1 ] && echo both-tty')).exited;
    expect(output).toBe('both-tty\r\n');
  });

  it('runs the program with the session environment, TERM=dumb included', async () => {
    const { output } = await (await spawn.pty('echo "TERM=$TERM NO_COLOR=$NO_COLOR PAGER=$PAGER"')).exited;
    expect(output).toBe('TERM=dumb NO_COLOR=1 PAGER=cat\r\n');
  });

  it('keeps nothing of its start while it runs: its options and environment can be collected', async () => {
    // The addon holds the exit callback for the session's life. Made inside the start, the callback kept the start's
    // whole scope alive with it (the options, the environment twice, the arguments): about 6 KiB a session.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let env: Record<string, string> | undefined = buildEnv();
    const collected = new WeakRef(env);
    const proc = await PtyProcess.start({ argv: ['/bin/sleep', '1000'], cwd: process.cwd(), env, tty: true });
    try {
      env = undefined;
      await new Promise((resolve) => setTimeout(resolve, 10)); // a WeakRef holds its target to the end of the task
      gc();
      expect(collected.deref()).toBeUndefined();
      expect(isAlive(proc.pid!)).toBe(true);
    } finally {
      await proc.terminate();
    }
  });

  it('reports the exit code', async () => {
    const { proc, exited } = await spawn.pty('exit 3');
    expect((await exited).info).toEqual({ exitCode: 3 });
    expect(proc.exitInfo).toEqual({ exitCode: 3 });
  });

  it('reports death by SIGKILL as 137', async () => {
    expect((await (await spawn.pty('kill -9 $$')).exited).info).toEqual({ exitCode: 137, signal: 'SIGKILL' });
  });

  it('passes what is written to the program and echoes it', async () => {
    const { proc, exited } = await spawn.pty('read -r line; echo "got:$line"');
    await proc.write('hello\n');
    expect((await exited).output).toBe('hello\r\ngot:hello\r\n');
  });

  it('delivers every byte of a 1 MB burst to a slow consumer before it reports the exit', async () => {
    const { proc } = await spawn.pty(BURST);
    let bytes = 0;
    let onlyA = true;
    proc.onData((chunk) => {
      busyWait(1);
      bytes += chunk.length;
      if (chunk.some((byte) => byte !== 0x61)) onlyA = false;
    });
    const atExit = await new Promise<number>((resolve) => proc.onExit(() => resolve(bytes)));
    expect({ atExit, onlyA }).toEqual({ atExit: 1_000_000, onlyA: true });
  });

  it('delivers a 1 MB burst intact five times in a row', async () => {
    for (let run = 0; run < 5; run++) {
      const { output } = await (await spawn.pty(BURST)).exited;
      expect(output.length, `run ${run}`).toBe(1_000_000);
      expect(/^a*$/.test(output), `run ${run}`).toBe(true);
    }
  });

  describe('its reads, made into one reused buffer', () => {
    const SEQ = 'seq 1 150000';
    const seqOutput = () => Array.from({ length: 150_000 }, (_, i) => `${i + 1}\r\n`).join('');

    it('hand onData listeners buffers of their own: every chunk kept of a long output is intact at its end', async () => {
      const { proc } = await spawn.pty(SEQ);
      const kept: Buffer[] = [];
      proc.onData((chunk) => kept.push(chunk));
      await new Promise<void>((resolve) => proc.onExit(() => resolve()));
      expect(kept.length).toBeGreaterThan(10);
      expect(Buffer.concat(kept).toString('latin1') === seqOutput()).toBe(true);
    });

    it('hand onDataView listeners views of the same buffers, read after read (no buffer made per read)', async () => {
      const { proc } = await spawn.pty(BURST);
      const backings = new Set<ArrayBufferLike>();
      let bytes = 0;
      let onlyA = true;
      proc.onDataView((chunk) => {
        backings.add(chunk.buffer);
        bytes += chunk.length;
        if (chunk.some((byte) => byte !== 0x61)) onlyA = false;
      });
      await new Promise<void>((resolve) => proc.onExit(() => resolve()));
      // The stream's buffer, and the drains' at the exit.
      expect({ bytes, onlyA, backings: backings.size <= 2 }).toEqual({ bytes: 1_000_000, onlyA: true, backings: true });
    });

    it('lose and reorder nothing when a listener drains while a read is handed on (that drain takes the marker)', async () => {
      const { proc } = await spawn.pty(SEQ);
      const kept: Buffer[] = [];
      let drains = 0;
      let reads = 0;
      // The first listener drains every few reads; the second keeps what it is handed, after it.
      proc.onDataView(() => {
        if (++reads % 5 === 0) {
          drains++;
          void proc.terminal!.flushOutput();
        }
      });
      proc.onDataView((chunk) => kept.push(Buffer.from(chunk)));
      // Drains from outside too, so some reads being handed on are a drain's own.
      const outside = setInterval(() => void proc.terminal!.flushOutput(), 1);
      await new Promise<void>((resolve) => proc.onExit(() => resolve()));
      clearInterval(outside);
      expect(drains).toBeGreaterThan(2);
      expect(Buffer.concat(kept).toString('latin1') === seqOutput()).toBe(true);
    });
  });

  it('resolves flushOutput() quickly on an idle terminal', async () => {
    const { proc, output } = await spawn.pty('read -r; echo done');
    const started = performance.now();
    await proc.flushOutput();
    // The drain timeout is 2 s: resolving well before it means the marker came back through the terminal.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(output()).toBe('');
  });

  it('never lets the drain marker into the output, even when flushing in the middle of a flood', async () => {
    // 2 MB: more than a drain reads at once (256 KiB), so drains in the flood leave the rest to a marker.
    const { proc, output, exited } = await spawn.pty("yes abc | head -c 2000000; read -r; printf 'end'");
    const drains = [];
    for (let i = 0; i < 20; i++) drains.push(proc.flushOutput());
    await Promise.all(drains);
    for (let i = 0; i < 20; i++) await proc.flushOutput();
    await vi.waitFor(() => expect(output().length).toBe(2_500_000), PATIENT);
    await proc.flushOutput();
    await proc.write('\n');
    const { output: all } = await exited;
    expect(all).toBe(`${'abc\r\n'.repeat(500_000)}\r\nend`);
    expect(all).not.toContain('ue-drain');
  });

  it('has delivered everything the program wrote before flushOutput() was called when it resolves', async () => {
    const digits = Array.from({ length: 3000 }, (_, i) => i + 1).join('');
    const { proc, output } = await spawn.pty(
      'printf ready; read -r; printf "%s" "$(seq 1 3000 | tr -d "\\n")"; exec sleep 1000',
    );
    await vi.waitFor(() => expect(output()).toBe('ready'), PATIENT);
    await proc.write('\n');
    // The shell execs sleep only after its printf returned, i.e. once every byte is in the terminal.
    await vi.waitFor(() => expect(readFileSync(`/proc/${proc.pid}/comm`, 'utf8')).toBe('sleep\n'), PATIENT);
    await proc.flushOutput();
    expect(output()).toBe(`ready\r\n${digits}`);
  });

  it.runIf(WRITE_SYSCALL !== undefined)(
    'completes a drain at once while output is stopped with ^S (a write blocked by it has not been written), and the write comes after ^Q',
    async () => {
      // The shell blocks writing "written" to the stopped terminal: none of it is in the terminal yet.
      const { proc, output } = await stoppedBeforeWritten();
      const started = performance.now();
      await proc.flushOutput();
      // The drain timeout is 2 s: well before it, the drain did not wait for the stopped output.
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(output()).toBe('ready');
      await proc.write('\u0011');
      await vi.waitFor(() => expect(output()).toBe('readywritten'), PATIENT);
      await proc.flushOutput();
      expect(output()).toBe('readywritten');
    },
  );

  describe('where the terminal cannot be read at once, by a marker through it', () => {
    // A drain reads the master itself when it can; a stream with data not yet handed on, a drain already under way
    // or a flood past what it reads at once leave it to a marker written through the terminal. Here every read
    // answers EBADF, so every drain takes the marker's way.
    beforeEach(() => {
      vi.spyOn(nativeHelpers(), 'readNow').mockReturnValue(-9);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('has delivered everything written before the call, and never lets the marker into the output', async () => {
      const { proc, output, exited } = await spawn.pty(
        'printf ready; read -r; yes abc | head -c 200000; printf end; read -r',
      );
      await vi.waitFor(() => expect(output()).toBe('ready'), PATIENT);
      await proc.write('\n');
      for (let i = 0; i < 20; i++) await proc.flushOutput();
      await vi.waitFor(() => expect(output().endsWith('end')).toBe(true), PATIENT);
      await proc.flushOutput();
      await proc.write('\n');
      const { output: all } = await exited;
      expect(all).toBe(`ready\r\n${'abc\r\n'.repeat(50_000)}end\r\n`);
      expect(all).not.toContain('ue-drain');
    });

    it.runIf(WRITE_SYSCALL !== undefined)(
      'keeps a drain open while output is stopped with ^S, and completes it after ^Q',
      async () => {
        // The shell blocks writing "written" to the stopped terminal; the marker cannot get through either.
        const { proc, output } = await stoppedBeforeWritten();
        let resolved = false;
        const flushed = proc.flushOutput().then(() => (resolved = true));
        // Waiting for something not to happen needs a window: 300 ms, well inside the 2 s drain timeout.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(resolved).toBe(false);
        await proc.write('\u0011');
        await flushed;
        await vi.waitFor(() => expect(output()).toBe('readywritten'), PATIENT);
        expect(output()).not.toContain('ue-drain');
      },
    );
  });

  it('never lets a write meant for a terminated terminal reach the next one, even when fs threads are busy', async () => {
    // Occupy every libuv pool thread with an open() of a FIFO that blocks until we open its other end: a write
    // queued on the pool now would run only after the terminal is gone and its fd numbers are reused.
    const dir = mkdtempSync(join(tmpdir(), 'ue-pool-'));
    const fifos = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, (_, i) => join(dir, `fifo-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const blockers = fifos.map((fifo) => open(fifo, 'r'));
    try {
      const first = await spawn.pty('sleep 1000');
      const typed = first.proc.write('typed-into-the-first\n');
      const flushed = first.proc.flushOutput();
      await first.proc.terminate();
      await flushed;

      const second = await spawn.pty('sleep 1000');
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      for (const handle of await Promise.all(blockers)) await handle.close();
      await typed;
      await second.proc.flushOutput();
      // Waiting for something not to happen needs a window.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(second.output()).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends a background grandchild when terminated', async () => {
    const { proc, output } = await spawn.pty('sleep 1000 & echo PID=$!; wait');
    await vi.waitFor(() => expect(output()).toMatch(/PID=\d+/), PATIENT);
    const grandchild = printedPid(output());
    expect(isAlive(grandchild)).toBe(true);
    await proc.terminate();
    await waitUntilGone(grandchild, 2_000);
    await waitUntilGone(proc.pid, 2_000);
  });

  it('can be terminated twice', async () => {
    const { proc } = await spawn.pty('sleep 1000');
    await Promise.all([proc.terminate(), proc.terminate()]);
    await waitUntilGone(proc.pid, 2_000);
  });
});
