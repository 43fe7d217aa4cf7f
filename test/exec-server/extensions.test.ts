// Our extensions of the exec-server protocol: unifiedExec at initialize, process/inputWait, process/resize, pid,
// cols/rows, the signal of an exit, waitingForInput on reads. A Codex client never sees any of them.
import { describe, expect, it } from 'vitest';
import { bash, decode, useExecServer, type Message, type TestClient } from './client.js';

const start = useExecServer();
const b64 = (text: string) => Buffer.from(text).toString('base64');
const TTY_ENV = { PATH: '/usr/bin:/bin', TERM: 'dumb' };

/** Index of the first message matching `match` in the client's arrival order. */
const indexOf = (client: TestClient, match: (m: Message) => boolean) => client.received.findIndex(match);

async function optedIn(url: string, client: (h?: Record<string, string>) => Promise<TestClient>) {
  const c = await client();
  const init = await c.initialize({ clientName: 'unified-exec-test', unifiedExec: { inputWait: true } });
  return { c, init, url };
}

describe('exec-server extensions', () => {
  it('says what it offers in every initialize result, and gives the pid of each process', async () => {
    const { url, dir, client } = await start();
    const { c, init } = await optedIn(url, client);
    expect(init.unifiedExec).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      inputWait: true,
      resize: true,
    });
    const codex = await client();
    expect((await codex.initialize({ clientName: 'codex-environment', resumeSessionId: null })).unifiedExec).toEqual(
      init.unifiedExec,
    );
    const started = await c.call('process/start', bash('p', 'echo $$', dir));
    await c.waitForEvent('closed', 'p');
    expect(c.output('p')).toBe(`${started.pid}\n`);
  });

  it('notifies input-wait after the banner, then after a write, behind its output and its response', async () => {
    const { url, dir, client } = await start();
    const { c } = await optedIn(url, client);
    await c.call('process/start', {
      processId: 'py',
      argv: ['python3', '-i'],
      cwd: `file://${dir}`,
      env: TTY_ENV,
      tty: true,
    });
    const first = (await c.waitForEvent('inputWait', 'py')).params;
    const before = c.events('py').filter((m) => m.method === 'process/output');
    expect(first).toEqual({ processId: 'py', seq: before.length + 1, inputSeq: 0, secretPrompt: false });
    expect(c.output('py')).toMatch(/Python 3[\s\S]*>>> $/); // the banner and the prompt came first
    expect((await c.call('process/read', { processId: 'py' })).waitingForInput).toBe(true);

    const write = c.request('process/write', { processId: 'py', chunk: b64('print(6*7)\n'), writeId: '1' });
    expect((await write).result).toEqual({ status: 'accepted' });
    const second = await c.waitFor((m) => m.method === 'process/inputWait' && m.params.inputSeq === 1);
    const events = c.events('py');
    const answer = events.filter((m) => m.method === 'process/output' && m.params.seq < second.params.seq);
    expect(answer.map((m) => decode(m.params.chunk)).join('')).toContain('42\r\n>>> ');
    expect(second.params.seq).toBe(Math.max(...answer.map((m) => m.params.seq)) + 1);
    const at = (m: Message) => c.received.indexOf(m);
    const writeResponse = indexOf(c, (m) => m.result?.status === 'accepted');
    const fortyTwo = answer.find((m) => decode(m.params.chunk).includes('42'))!;
    expect(at(second)).toBeGreaterThan(writeResponse);
    expect(at(second)).toBeGreaterThan(at(fortyTwo));
    await c.call('process/terminate', { processId: 'py' });
  });

  it('flags a password prompt (read -s) as secret, in the notification and in reads', async () => {
    const { url, dir, client } = await start();
    const { c } = await optedIn(url, client);
    await c.call(
      'process/start',
      bash('pw', 'read -s -p "Password: " pw; echo; echo "got ${#pw}"', dir, { tty: true, env: TTY_ENV }),
    );
    const wait = await c.waitForEvent('inputWait', 'pw');
    expect(wait.params).toMatchObject({ inputSeq: 0, secretPrompt: true });
    expect(c.output('pw')).toBe('Password: ');
    expect(await c.call('process/read', { processId: 'pw' })).toMatchObject({
      waitingForInput: true,
      secretPrompt: true,
    });
    await c.call('process/write', { processId: 'pw', chunk: b64('hunter2\n'), writeId: '1' });
    await c.waitForEvent('closed', 'pw');
    expect(c.output('pw')).toBe('Password: \r\ngot 7\r\n'); // not echoed
  });

  it('never sends process/inputWait to a client that did not ask, and reads say nothing waits', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize({ clientName: 'codex-environment', resumeSessionId: null });
    await c.call('process/start', {
      processId: 'py',
      argv: ['python3', '-q', '-i'],
      cwd: `file://${dir}`,
      env: TTY_ENV,
      tty: true,
    });
    await c.waitFor((m) => m.method === 'process/output' && decode(m.params.chunk).includes('>>> '));
    await new Promise((r) => setTimeout(r, 400));
    expect(c.received.filter((m) => m.method === 'process/inputWait')).toEqual([]);
    expect((await c.call('process/read', { processId: 'py' })).waitingForInput).toBe(false);
    await c.call('process/terminate', { processId: 'py' });
  });

  it('starts a terminal at cols x rows and resizes it; resize refuses unknown ids and pipes', async () => {
    const { url, dir, client } = await start();
    const { c } = await optedIn(url, client);
    const script = 'stty size; read x; stty size';
    await c.call('process/start', bash('t', script, dir, { tty: true, cols: 120, rows: 40 }));
    await c.waitFor((m) => m.method === 'process/output' && c.output('t').includes('40 120'));
    expect(await c.call('process/resize', { processId: 't', cols: 100, rows: 30 })).toEqual({});
    await c.call('process/write', { processId: 't', chunk: b64('\n'), writeId: '1' });
    await c.waitForEvent('closed', 't');
    expect(c.output('t')).toBe('40 120\r\n\r\n30 100\r\n');
    await expect(c.call('process/resize', { processId: 'nope', cols: 80, rows: 24 })).rejects.toMatchObject({
      code: -32600,
      message: 'unknown process id nope',
    });
    await c.call('process/start', bash('pipes', 'sleep 5', dir));
    await expect(c.call('process/resize', { processId: 'pipes', cols: 80, rows: 24 })).rejects.toMatchObject({
      code: -32602,
      message: 'process pipes has no terminal',
    });
    await c.call('process/terminate', { processId: 'pipes' });
  });

  it('names the signal that killed a process, on the exit and in reads', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize();
    await c.call('process/start', bash('k', 'kill -9 $$', dir));
    await c.call('process/start', bash('kt', 'kill -9 $$', dir, { tty: true }));
    expect((await c.waitForEvent('exited', 'k')).params).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
    expect((await c.waitForEvent('exited', 'kt')).params).toMatchObject({ exitCode: 1, signal: 'SIGKILL' });
    expect(await c.call('process/read', { processId: 'k' })).toMatchObject({ exitCode: 137, signal: 'SIGKILL' });
  });

  it('sends output as binary frames to a client that asked: every byte intact, in seq order with the exit', async () => {
    const { dir, client } = await start();
    const binary = await client();
    const init = await binary.initialize({ clientName: 'unified-exec-test', unifiedExec: { binaryOutput: true } });
    expect(init.unifiedExec).toMatchObject({ binaryOutput: true });
    const codex = await client();
    expect((await codex.initialize({ clientName: 'codex-environment' })).unifiedExec).not.toHaveProperty(
      'binaryOutput',
    );
    // Every byte value, many 8 KiB chunks' worth, on both streams; then a tty, whose stream is `pty`.
    const script =
      "python3 -c 'import sys; b = bytes(range(256)) * 1200; sys.stdout.buffer.write(b); sys.stdout.flush(); sys.stderr.buffer.write(b[::-1][:1000])'";
    const expected = Buffer.from(Array.from({ length: 256 * 1200 }, (_, i) => i % 256));
    for (const c of [binary, codex]) {
      await c.call('process/start', bash('b', script, dir));
      await c.call('process/start', bash('t', 'printf "a\\000b"', dir, { tty: true, env: TTY_ENV }));
      await Promise.all([c.waitForEvent('closed', 'b'), c.waitForEvent('closed', 't')]);
      const bytes = (id: string, stream: string) =>
        Buffer.concat(
          c
            .events(id)
            .filter((m) => m.method === 'process/output' && m.params.stream === stream)
            .map((m) => Buffer.from(m.params.chunk, 'base64')),
        );
      expect(bytes('b', 'stdout').equals(expected)).toBe(true);
      expect(bytes('b', 'stderr').equals(Buffer.from(expected).reverse().subarray(0, 1000))).toBe(true);
      expect(bytes('t', 'pty').toString('latin1')).toBe('a\0b');
      const events = c.events('b');
      expect(events.map((m) => m.params.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.slice(-2).map((m) => m.method)).toEqual(['process/exited', 'process/closed']);
      const outputs = [...events, ...c.events('t')].filter((m) => m.method === 'process/output');
      expect(outputs.length).toBeGreaterThan(38);
      expect(outputs.every((m) => m.binary === (c === binary ? true : undefined))).toBe(true);
      // A read's chunks share a frame (a 64 KiB pipe read is 8 chunks).
      if (c === binary) expect(Math.max(...outputs.map((m) => m.frameChunks))).toBeGreaterThan(1);
    }
  });

  it("sends a terminal's flood whole and in seq order, each read in a frame of its own, at once", async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize({ clientName: 'unified-exec-test', unifiedExec: { binaryOutput: true } });
    const size = 4_000_000;
    // A terminal is read mostly 4 KiB at a time, sometimes more.
    await c.call(
      'process/start',
      bash('f', `echo start; sleep 0.2; head -c ${size} /dev/zero | tr '\\0' a`, dir, { tty: true, env: TTY_ENV }),
    );
    await c.waitForEvent('closed', 'f', 30_000);
    const outputs = c.events('f').filter((m) => m.method === 'process/output');
    expect(outputs.map((m) => m.params.seq)).toEqual(outputs.map((_, i) => i + 1));
    const text = outputs.map((m) => decode(m.params.chunk)).join('');
    expect(text).toBe(`start\r\n${'a'.repeat(size)}`);
    // A frame holds one read: a read past a chunk's 8 KiB is cut into chunks, all full but its last. A frame that
    // joined two reads (terminal reads are mostly under 8 KiB) would hold a chunk short of it before its last.
    const notLast = outputs.filter((m) => m.frameIndex < m.frameChunks - 1);
    expect(notLast.every((m) => Buffer.from(m.params.chunk, 'base64').length === 8192)).toBe(true);
  });
});
