import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { exec } from '../../src/index.js';
import { MAX_OUTPUT_DELTAS } from '../../src/manager/constants.js';
import { FakeExecutor } from '../helpers/fake-executor.js';
import { BASH, useManagers } from '../helpers/manager.js';

// onOutput: the output of a call as it is printed, while the call waits; the reply still carries all of it.

/** A listener that keeps what it is given, and says when the call it was given to had answered. */
function recorder() {
  const deltas: string[] = [];
  let answered = false;
  let lateDeltas = 0;
  return {
    deltas,
    onOutput: (text: string) => {
      if (answered) lateDeltas++;
      deltas.push(text);
    },
    answered: () => void (answered = true),
    lateDeltas: () => lateDeltas,
  };
}

/**
 * Three lines, each printed once the listener has seen the one before (`seen` leaves a file per delta):
 * a chunk each, however slow a loaded machine makes the reads.
 */
function threeLines() {
  const dir = mkdtempSync(join(tmpdir(), 'ue-streaming-'));
  folders.push(dir);
  let seen = 0;
  return {
    cmd: `for i in 1 2 3; do echo line$i; until [ -e ${dir}/seen$i ]; do sleep 0.01; done; done`,
    seen: () => writeFileSync(join(dir, `seen${++seen}`), ''),
  };
}
const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('streaming the output of a call', () => {
  const newManager = useManagers();

  for (const tty of [true, false]) {
    it(`streams exec_command output in order, and all of it is in the reply too (${tty ? 'tty' : 'pipes'})`, async () => {
      const manager = newManager();
      const seen = recorder();
      const lines = threeLines();
      const onOutput = (text: string) => {
        seen.onOutput(text);
        lines.seen();
      };
      const response = await manager.execCommand(
        { command: lines.cmd, tty, yieldTimeMs: 10_000, ...BASH },
        { onOutput },
      );
      expect(response).toMatchObject({ state: 'exited', exitCode: 0 });
      const eol = tty ? '\r\n' : '\n';
      expect(response.output).toBe(`line1${eol}line2${eol}line3${eol}`);
      expect(seen.deltas.join('')).toBe(response.output);
      expect(seen.deltas.length).toBe(3);
    });
  }

  it('sends no delta once the call has answered: what follows waits in the buffer', async () => {
    const manager = newManager();
    const seen = recorder();
    const response = await manager.execCommand(
      { command: 'while :; do echo tick; sleep 0.05; done', tty: false, yieldTimeMs: 300, ...BASH },
      { onOutput: seen.onOutput },
    );
    seen.answered();
    expect(response.state).toBe('running');
    expect(seen.deltas.join('')).toBe(response.output);
    expect(response.output).toMatch(/^(tick\n)+$/);

    // The program goes on printing: into the buffer for the next call, not to this call's listener.
    const [session] = manager.listSessions();
    await vi.waitFor(() => expect(manager.listSessions()[0]!.bufferedBytes).toBeGreaterThan(3 * 'tick\n'.length));
    expect(session!.exited).toBe(false);
    expect(seen.lateDeltas()).toBe(0);
  });

  it('sends no delta after a call that answered because the program exited, not even of output after the exit', async () => {
    const executor = new FakeExecutor();
    const manager = newManager({ executor, shellSnapshot: false });
    const seen = recorder();
    const call = manager.execCommand({ command: 'bye', tty: true, yieldTimeMs: 10_000 }, { onOutput: seen.onOutput });
    const proc = await vi.waitFor(() => executor.process(0));
    proc.print('bye\r\n');
    proc.exit(0);
    const response = await call;
    seen.answered();
    expect(response).toMatchObject({ state: 'exited', output: 'bye\r\n' });
    // A grandchild still holding the terminal prints before the session is closed: no delta for an answered call.
    proc.print('late\r\n');
    expect(seen.lateDeltas()).toBe(0);
    expect(seen.deltas).toEqual(['bye\r\n']);
  });

  it('never splits a character across deltas, even one begun before the call', async () => {
    const manager = newManager();
    // The euro sign is e2 82 ac: its first two bytes come with the first reply, the last one during the poll.
    const started = await manager.execCommand(
      { command: String.raw`printf '\xe2\x82'; sleep 1; printf '\xac done\n'`, tty: false, yieldTimeMs: 250, ...BASH },
      { onOutput: () => undefined },
    );
    expect(started).toMatchObject({ state: 'running', output: '' });
    const seen = recorder();
    const polled = await manager.writeStdin(
      { sessionId: started.sessionId!, chars: '', yieldTimeMs: 5_000 },
      { onOutput: seen.onOutput },
    );
    expect(polled).toMatchObject({ state: 'exited', output: '€ done\n' });
    expect(seen.deltas.join('')).toBe('€ done\n');
  });

  it('streams the echo and the answer of a program write_stdin types into', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ command: 'cat', tty: true, yieldTimeMs: 250, ...BASH });
    expect(started.state).not.toBe('exited');
    const seen = recorder();
    const response = await manager.writeStdin(
      { sessionId: started.sessionId!, chars: 'hello\n', yieldTimeMs: 1_000 },
      { onOutput: seen.onOutput },
    );
    expect(response.output).toBe('hello\r\nhello\r\n');
    expect(seen.deltas.join('')).toBe(response.output);
  });

  it('answers as usual when the listener throws', async () => {
    const manager = newManager();
    let calls = 0;
    const lines = threeLines();
    const response = await manager.execCommand(
      { command: lines.cmd, tty: true, yieldTimeMs: 10_000, ...BASH },
      {
        onOutput: () => {
          calls++;
          lines.seen();
          throw new Error('listener failed');
        },
      },
    );
    expect(response).toMatchObject({ state: 'exited', exitCode: 0, output: 'line1\r\nline2\r\nline3\r\n' });
    // Each delta was still offered: one throw does not end the stream.
    expect(calls).toBe(3);
  });

  it(`sends at most ${MAX_OUTPUT_DELTAS} deltas in one call; the reply has everything`, async () => {
    const executor = new FakeExecutor();
    const manager = newManager({ executor, shellSnapshot: false });
    const seen = recorder();
    const call = manager.execCommand(
      { command: 'chatty', tty: false, yieldTimeMs: 10_000 },
      { onOutput: seen.onOutput },
    );
    const proc = await vi.waitFor(() => executor.process(0));
    const chunks = MAX_OUTPUT_DELTAS + 500;
    for (let i = 0; i < chunks; i++) proc.print('x');
    proc.exit(0);
    const response = await call;
    expect(response.output).toBe('x'.repeat(chunks));
    expect(seen.deltas).toHaveLength(MAX_OUTPUT_DELTAS);
    expect(seen.deltas.every((delta) => delta === 'x')).toBe(true);
  });

  it('counts the cap per call: a later call streams again', async () => {
    const executor = new FakeExecutor();
    const manager = newManager({ executor, shellSnapshot: false });
    const first = recorder();
    const call = manager.execCommand({ command: 'chatty', tty: true, yieldTimeMs: 250 }, { onOutput: first.onOutput });
    const proc = await vi.waitFor(() => executor.process(0));
    for (let i = 0; i < MAX_OUTPUT_DELTAS + 1; i++) proc.print('x');
    const started = await call;
    expect(first.deltas).toHaveLength(MAX_OUTPUT_DELTAS);

    const second = recorder();
    const poll = manager.writeStdin(
      { sessionId: started.sessionId!, chars: '', yieldTimeMs: 5_000 },
      { onOutput: second.onOutput },
    );
    // The poll takes the session a microtask later; by the next turn of the loop it listens.
    await new Promise((resolve) => setImmediate(resolve));
    proc.print('more');
    proc.exit(0);
    expect((await poll).output).toBe('more');
    expect(second.deltas).toEqual(['more']);
  });
});

describe('streaming the output of a one-shot command', () => {
  const newManager = useManagers();

  it('streams stdout and stderr of a shell call in the order they come', async () => {
    const manager = newManager();
    const seen = recorder();
    const response = await manager.shell(
      { command: ['bash', '-c', 'echo out; sleep 0.2; echo err >&2; sleep 0.2; echo out2'] },
      { onOutput: seen.onOutput },
    );
    seen.answered();
    expect(response).toMatchObject({ exitCode: 0, output: 'out\nout2\nerr\n' });
    expect(seen.deltas).toEqual(['out\n', 'err\n', 'out2\n']);
    expect(seen.lateDeltas()).toBe(0);
  });

  it('streams from exec() without splitting a character, and a throwing listener changes nothing', async () => {
    const deltas: string[] = [];
    const outcome = await exec({
      command: String.raw`printf '\xe2\x82'; sleep 0.2; printf '\xac\n'`,
      shell: '/bin/bash',
      onOutput: (text) => {
        deltas.push(text);
        throw new Error('listener failed');
      },
    });
    expect(outcome).toMatchObject({ exitCode: 0, stdout: '€\n' });
    expect(deltas).toEqual(['€\n']);
  });
});
