import { createRequire } from 'node:module';
import {
  chmodSync,
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tty from 'node:tty';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildEnv } from '../../src/spawn/env.js';
import { PtyProcess } from '../../src/spawn/pty-process.js';
import type { NativePty, NodePtyBinaries } from '../../src/spawn/node-pty-native.js';
import { nativeHelpers } from '../../src/util/native-addon.js';

const helpers = nativeHelpers();
const ENOENT = 2;
const ENOEXEC = 8;
const ENAMETOOLONG = 36;
const O_NONBLOCK = 0o4000;
const O_CLOEXEC = 0o2000000;
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ue-spawn-terminal-')));
const env = Object.entries(buildEnv()).map(([name, value]) => `${name}=${value}`);

interface Started {
  pid: number;
  master: number;
  slave: number;
  pty: string;
  /** Everything the terminal showed, once the process exited and the terminal hung up. */
  output: Promise<string>;
  /** onExit's (code, signal). */
  exit: Promise<[number, number]>;
}

/** Processes a test started, ended (by pid) after it. */
const live = new Set<number>();
afterEach(() => {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  live.clear();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Answer = { pid: number; master: number; slave: number; pty: string } | number;

/** spawnTerminal's answer, which comes later than its return, on a later turn of the event loop. */
function startTerminal(
  file: string,
  argv: string[],
  cwd: string,
  cols: number,
  rows: number,
  onExit: (code: number, signal: number) => void,
): Promise<Answer> {
  let answer: Answer | undefined;
  return new Promise<Answer>((resolve) => {
    const returned = helpers.spawnTerminal(file, argv, env, cwd, cols, rows, onExit, (a) => resolve((answer = a)));
    // It returns before the program has started (the clone runs on a thread of libuv's pool), with the start's id.
    expect(returned).toBeGreaterThan(0);
    expect(answer).toBeUndefined();
  });
}

/** `/bin/sh -c script` through spawnTerminal; its output read from the master until the terminal hangs up. */
async function spawnScript(
  script: string,
  options: { cwd?: string; cols?: number; rows?: number } = {},
): Promise<Started> {
  let told!: (exit: [number, number]) => void;
  const exit = new Promise<[number, number]>((resolve) => (told = resolve));
  const started = await startTerminal(
    '/bin/sh',
    ['/bin/sh', '-c', script],
    options.cwd ?? dir,
    options.cols ?? 80,
    options.rows ?? 24,
    (code, signal) => told([code, signal]),
  );
  if (typeof started === 'number') throw new Error(`spawnTerminal answered errno ${started}`);
  live.add(started.pid);
  void exit.then(() => live.delete(started.pid));
  // The slave end of ours is closed once the process exited, so the master hangs up (EIO) when its output is read.
  void exit.then(() => closeSync(started.slave));
  const reader = new tty.ReadStream(started.master);
  const chunks: Buffer[] = [];
  reader.on('data', (chunk: Buffer) => chunks.push(chunk));
  const output = new Promise<string>((resolve) => {
    const done = () => resolve(Buffer.concat(chunks).toString('utf8'));
    reader.on('error', done);
    reader.on('close', done);
  });
  return { ...started, output, exit };
}

/** Fields of /proc/<pid>/stat after the command name: state, ppid, pgrp, session, tty_nr, tpgid, ... */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** The flags of one of this process's fds, from /proc/self/fdinfo. */
function fdFlags(fd: number): number {
  const line = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('flags:'));
  return parseInt(line!.split(/\s+/)[1]!, 8);
}

describe('spawnTerminal (our addon)', () => {
  it('starts the program as the leader of a new session whose controlling terminal, in the foreground, is the new terminal', async () => {
    const started = await spawnScript('exec cat /proc/self/stat');
    // Gone once the last fd of the terminal closes.
    const terminal = statSync(started.pty).rdev;
    const fields = statFields(await started.output);
    const [, , pgrp, session, ttyNr, tpgid] = fields.map(Number);
    expect(session).toBe(started.pid);
    expect(pgrp).toBe(started.pid);
    expect(tpgid).toBe(started.pid);
    expect(ttyNr).toBe(terminal);
  });

  it('starts it in the directory given, with the environment given', async () => {
    const started = await spawnScript('pwd -P; printf "%s\\n" "$TERM"', { cwd: dir });
    expect(await started.output).toBe(`${dir}\r\ndumb\r\n`);
  });

  it('starts it with every signal at its default and none blocked, though this process ignores SIGPIPE', async () => {
    // Node ignores SIGPIPE; an ignored signal stays ignored across exec unless the child resets it.
    const status = await (await spawnScript('exec cat /proc/self/status')).output;
    const mask = (name: string) => BigInt(`0x${new RegExp(`^${name}:\\s+([0-9a-f]+)`, 'm').exec(status)![1]}`);
    expect(mask('SigIgn')).toBe(0n);
    expect(mask('SigBlk')).toBe(0n);
  });

  it("opens the terminal in node-pty's modes, at the size given", async () => {
    const ours = (await (await spawnScript('stty -g; stty size', { cols: 132, rows: 50 })).output).trim().split(/\r\n/);
    const pty = (createRequire(import.meta.url)('@lydell/node-pty/requireBinary') as NodePtyBinaries).requireBinary(
      'pty.node',
    ) as NativePty;
    const theirs = await new Promise<string>((resolve) => {
      const term = pty.fork('/bin/sh', ['-c', 'stty -g'], env, dir, 80, 24, -1, -1, true, '', () => undefined);
      live.add(term.pid);
      const reader = new tty.ReadStream(term.fd);
      let text = '';
      reader.on('data', (chunk: Buffer) => (text += chunk.toString()));
      reader.on('error', () => resolve(text));
      reader.on('close', () => resolve(text));
    });
    expect(ours).toEqual([theirs.trim(), '50 132']);
  });

  it('tells the exit code, and the signal that ended it', async () => {
    expect(await (await spawnScript('exit 3')).exit).toEqual([3, 0]);
    expect(await (await spawnScript('kill -TERM $$')).exit).toEqual([0, 15]);
  });

  it('gives a master and a slave end of ours that are non-blocking and close-on-exec', async () => {
    const started = await spawnScript('exit 0');
    for (const fd of [started.master, started.slave]) {
      expect(fdFlags(fd) & O_NONBLOCK).toBe(O_NONBLOCK);
      expect(fdFlags(fd) & O_CLOEXEC).toBe(O_CLOEXEC);
    }
    await started.exit;
  });

  it('answers the errno, with nothing left open, when the program cannot be started so', async () => {
    const noShebang = join(dir, 'no-shebang');
    writeFileSync(noShebang, 'echo ran\n');
    chmodSync(noShebang, 0o755);
    const fds = new Set(readdirSync('/proc/self/fd'));
    const onExit = () => undefined;
    expect(await startTerminal(join(dir, 'missing'), ['missing'], dir, 80, 24, onExit)).toBe(ENOENT);
    expect(await startTerminal(noShebang, [noShebang], dir, 80, 24, onExit)).toBe(ENOEXEC);
    expect(await startTerminal('/bin/sh', ['sh'], join(dir, 'missing'), 80, 24, onExit)).toBe(ENOENT);
    expect(await startTerminal('/bin/sh', ['sh'], `/${'a'.repeat(5000)}`, 80, 24, onExit)).toBe(ENAMETOOLONG);
    // None of theirs left open: every fd open now was open before (an earlier test's may have closed since).
    expect(readdirSync('/proc/self/fd').filter((fd) => !fds.has(fd))).toEqual([]);
  });
});

describe("spawnTerminal while every thread of libuv's pool is busy", () => {
  it('starts the program on this thread once startNow takes the start back from the pool', async () => {
    // Each pool thread held by an open() of a FIFO that blocks until its other end is opened.
    const fifos = Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, (_, i) => join(dir, `fifo-${i}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const blockers = fifos.map((fifo) => open(fifo, 'r'));
    try {
      let answer: Answer | undefined;
      let told!: (exit: [number, number]) => void;
      const exit = new Promise<[number, number]>((resolve) => (told = resolve));
      const onExit = (code: number, signal: number) => told([code, signal]);
      const answered = new Promise<Answer>((resolve) => {
        const id = helpers.spawnTerminal('/bin/sh', ['sh', '-c', 'exit 7'], env, dir, 80, 24, onExit, (a) =>
          resolve((answer = a)),
        );
        expect(helpers.startNow(id + 1000)).toBe(false); // no such start
        // Not begun, the pool being busy: taken back, and its answer comes on a later turn all the same.
        expect(helpers.startNow(id)).toBe(true);
        expect(answer).toBeUndefined();
      });
      const started = await answered;
      if (typeof started === 'number') throw new Error(`spawnTerminal answered errno ${started}`);
      live.add(started.pid);
      expect(await exit).toEqual([7, 0]);
      for (const fd of [started.master, started.slave]) closeSync(fd);
    } finally {
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      for (const handle of await Promise.all(blockers)) await handle.close();
    }
  });
});

describe('PtyProcess where spawnTerminal cannot start the program', () => {
  it('starts it through node-pty as before: a script without #! runs in sh', async () => {
    const script = join(dir, 'plain-script');
    writeFileSync(script, 'echo "ran as $0"\n');
    chmodSync(script, 0o755);
    const proc = await PtyProcess.start({ argv: [script], cwd: dir, env: buildEnv(), tty: true });
    const chunks: Buffer[] = [];
    proc.onData((chunk) => chunks.push(Buffer.from(chunk)));
    const info = await new Promise((resolve) => proc.onExit(resolve));
    expect(info).toEqual({ exitCode: 0 });
    expect(Buffer.concat(chunks).toString()).toBe(`ran as ${script}\r\n`);
    await proc.terminate();
  });
});
