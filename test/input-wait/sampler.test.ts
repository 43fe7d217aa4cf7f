import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sampleForeground, syscallTable, terminalName, unchangedSince } from '../../src/input-wait/sampler.js';
import { PATIENT } from '../helpers/processes.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import { decideInputWait, type ForegroundSample, type MemberSample } from '../../src/input-wait/decide.js';
import type { ExecProcess } from '../../src/spawn/types.js';
import { NO_SANDBOX, sandboxPolicy, useWorkspace } from '../sandbox/sandbox-helpers.js';
import type { SandboxPolicy } from '../../src/sandbox/policy.js';

// What the sampler reads of real waits: each program prints 'ready', then blocks in one call on its terminal and a
// socketpair it holds both ends of (its own wake-up), with a known timeout.
const live: ExecProcess[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((p) => p.terminate()));
});

/** What a wait was sampled from: the program in its terminal, and the sample of its foreground group. */
interface Sampled {
  proc: ExecProcess;
  member: MemberSample;
}

/**
 * Starts `argv` (default: `python3 -c code`) in a terminal, in `sandbox` when given, and samples the program (the
 * last member of the foreground group: a sandbox's bubblewrap and init come first) once it printed `ready` and
 * waits in a call of `family`. `then` is written to its terminal once it has started.
 */
async function sampled(
  code: string,
  family: number[],
  options: { argv?: string[]; sandbox?: SandboxPolicy; cwd?: string; then?: (proc: ExecProcess) => string } = {},
): Promise<Sampled> {
  const table = syscallTable!;
  const proc = await new LocalExecutor({ watchdog: false }).spawn({
    argv: options.argv ?? ['python3', '-c', code],
    cwd: options.cwd ?? '/tmp',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb', HOME: process.env.HOME ?? '/tmp' },
    tty: true,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  live.push(proc);
  let out = '';
  proc.onData((chunk) => (out += chunk.toString()));
  if (options.then) proc.write(options.then(proc));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const member = sampleForeground(proc.pid!, table, proc.terminal)?.members.at(-1);
    const nr = typeof member?.syscall === 'object' ? member.syscall.nr : undefined;
    if (out.includes('ready') && member && nr !== undefined && family.includes(nr)) return { proc, member };
    if (Date.now() > deadline) throw new Error(`never waited in ${family.join('/')}; printed: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts `python3 -c code` in a terminal and samples its main thread once it waits in a call of `family`. */
async function waitOf(code: string, family: number[]): Promise<MemberSample> {
  return (await sampled(code, family)).member;
}

const PAIR = "import select, socket, sys\na, b = socket.socketpair()\nprint('ready', flush=True)\n";

describe.skipIf(syscallTable === undefined)('the sampler on real waits', () => {
  const table = syscallTable!;

  it.each([
    ['select (a timeval)', 'select.select([0, a], [], [], 60)', table.select],
    [
      'poll (an int of ms)',
      'p = select.poll()\np.register(0, select.POLLIN)\np.register(a, select.POLLIN)\np.poll(60000)',
      table.poll,
    ],
    [
      'epoll (an int of ms)',
      'e = select.epoll()\ne.register(0, select.EPOLLIN)\ne.register(a, select.EPOLLIN)\ne.poll(60)',
      table.epoll,
    ],
  ])('reads the timeout of %s', async (_name, call, family) => {
    const member = await waitOf(PAIR + call, family);
    // A minute, so that a loaded machine's late sample still finds it waiting, with most of it left.
    expect(member.timeoutMs).toBeGreaterThan(50_000);
    expect(member.timeoutMs).toBeLessThanOrEqual(60_000);
    const pairEnd = member.watchedFds!.find((fd) => member.fdTargets[fd]?.startsWith('socket:'));
    expect(member.ownWakeupFds).toEqual([pairEnd]);
    expect(member.watchedFds!.some((fd) => member.fdTargets[fd]?.startsWith('/dev/pts/'))).toBe(true);
  });

  it.each([
    ['a select', 'select.select([0, a], [], [])', table.select],
    ['a poll', 'p = select.poll()\np.register(0, select.POLLIN)\np.register(a, select.POLLIN)\np.poll()', table.poll],
    [
      'an epoll wait',
      'e = select.epoll()\ne.register(0, select.EPOLLIN)\ne.register(a, select.EPOLLIN)\ne.poll()',
      table.epoll,
    ],
  ])('reads %s with no timeout as -1', async (_name, call, family) => {
    expect((await waitOf(PAIR + call, family)).timeoutMs).toBe(-1);
  });

  it('reads what an epoll set watches for writing apart from what it reads', async () => {
    const member = await waitOf(
      // Its send buffer full first, so that asking to write does not wake it at once.
      PAIR +
        'a.setblocking(False)\ntry:\n  while True: a.send(bytes(65536))\nexcept BlockingIOError: pass\n' +
        'e = select.epoll()\ne.register(0, select.EPOLLIN)\ne.register(a, select.EPOLLOUT)\ne.poll(30)',
      table.epoll,
    );
    const pairEnd = Object.entries(member.fdTargets).find(([, link]) => link.startsWith('socket:'))![0];
    expect(member.otherWatchedFds).toEqual([Number(pairEnd)]);
    expect(member.watchedFds).toEqual([0]);
  });

  it('reads the wait of a thread that reads the terminal for the main one', async () => {
    const code = [
      'import select, threading, time',
      'threading.Thread(target=lambda: select.select([0], [], [])).start()',
      "print('ready', flush=True)",
      'time.sleep(0.2)',
      'e = select.epoll()',
      'e.poll()',
    ].join('\n');
    const member = await waitOf(code, table.epoll);
    const reader = member.otherThreads.find((t) => t.wait !== undefined);
    expect(reader?.wait?.watchedFds).toEqual([0]);
    expect(reader?.wait?.timeoutMs).toBe(-1);
  });
});

describe('the terminal known by which file it is', () => {
  const terminal = { path: '/dev/pts/3', id: '26:6' };

  it('names an fd that is the terminal under another name (/dev/console in the sandbox) as the terminal', () => {
    expect(terminalName('/dev/console', '26:6', terminal)).toBe('/dev/pts/3');
    expect(terminalName('/dev/pts/3', '26:6', terminal)).toBe('/dev/pts/3');
  });

  it("does not take another devpts's terminal of the same name for it", () => {
    expect(terminalName('/dev/pts/3', '41:6', terminal)).toBe('/dev/pts/3 (another terminal of that name)');
    expect(terminalName('/dev/pts/3', undefined, terminal)).toBe('/dev/pts/3 (another terminal of that name)');
    expect(terminalName('/dev/console', '41:6', terminal)).toBe('/dev/console');
  });

  it('leaves /dev/tty, other files and an unknown terminal as they are', () => {
    expect(terminalName('/dev/tty', undefined, terminal)).toBe('/dev/tty');
    expect(terminalName('pipe:[12]', '26:6', terminal)).toBe('pipe:[12]');
    expect(terminalName('/dev/console', '26:6', undefined)).toBe('/dev/console');
    expect(terminalName('/dev/console', '26:6', { path: '/dev/pts/3', id: undefined })).toBe('/dev/console');
    expect(terminalName('/dev/pts/3', '26:6', { path: '/dev/pts/3', id: undefined })).toBe('/dev/pts/3');
  });
});

// CI installs bubblewrap: there a missing sandbox fails instead of skipping.
describe.skipIf(syscallTable === undefined || (NO_SANDBOX !== undefined && !process.env.CI))(
  'the sampler on real waits in the default sandbox',
  () => {
    const table = syscallTable!;
    const ws = useWorkspace();

    it("sees node's event loop read its terminal, which libuv reopened as /dev/console", async () => {
      const { proc, member } = await sampled('', table.epoll, {
        argv: ['node', '-e', "process.stdin.on('data', () => {}); console.log('ready')"],
        sandbox: sandboxPolicy({ workspace: ws.dir }),
        cwd: ws.dir,
      });
      const path = proc.terminal!.path;
      expect(member.watchedFds!.some((fd) => member.fdTargets[fd] === path)).toBe(true);
      expect(decideInputWait(sampleForeground(proc.pid!, table, proc.terminal)!, path, table).kind).toBe('waiting');
    });

    it("does not take a pty of the sandbox's own devpts named like the session's terminal for it", async () => {
      // The program reads the number of the session's terminal, opens ptys of its own until one has that name, and
      // waits on that one alone: input to the session never reaches it.
      const code = [
        'import os, select',
        'n = input()',
        'held = [os.openpty() for _ in range(int(n) + 1)]',
        "slave = next(s for m, s in held if os.ttyname(s) == '/dev/pts/' + n)",
        "print('ready', flush=True)",
        'select.select([slave], [], [])',
      ].join('\n');
      const { proc, member } = await sampled(code, table.select, {
        sandbox: sandboxPolicy({ workspace: ws.dir }),
        cwd: ws.dir,
        then: (p) => `${p.terminal!.path.slice('/dev/pts/'.length)}\n`,
      });
      const path = proc.terminal!.path;
      expect(member.watchedFds!.map((fd) => member.fdTargets[fd])).toEqual([`${path} (another terminal of that name)`]);
      expect(decideInputWait(sampleForeground(proc.pid!, table, proc.terminal)!, path, table).kind).toBe('busy');
    });
  },
);

describe.skipIf(process.platform !== 'linux')('unchangedSince: whether nothing of a sampled group has run', () => {
  it('holds while the group waits, and not once a member has run or another group has the terminal', async () => {
    const table = syscallTable!;
    // Reads a line, then waits for a child.
    const { proc } = await sampled('', [...table.read, ...table.select], {
      argv: ['bash', '--norc', '--noprofile', '-c', 'echo ready; read -r; sleep 1000 & wait'],
    });
    const pid = proc.pid!;
    const sample = sampleForeground(pid, table, proc.terminal)!;
    expect(unchangedSince(pid, sample)).toBe(true);
    expect(unchangedSince(pid, sample)).toBe(true);
    await proc.write('\n');
    // The shell has run: it read the line and started its child.
    await vi.waitFor(() => expect(unchangedSince(pid, sample)).toBe(false), PATIENT);
    // A sample whose foreground group is not the terminal's now does not hold, whatever the run counts say.
    const waiting = sampleForeground(pid, table, proc.terminal)!;
    expect(unchangedSince(pid, { ...waiting, tpgid: waiting.tpgid + 1 })).toBe(false);
  });
});

describe.skipIf(process.platform !== 'linux')('unchangedSince: a member woken but not yet run', () => {
  it("does not hold for `tr` of `cat | tr` once cat's write has woken it, though its run count is as it was", async () => {
    // The race a sample can meet: tr read before cat wrote to the pipe (asleep, count N), cat read after it went back
    // to its read. tr is woken by then: R, its count still N until it gets a CPU. Here it cannot get one: it is pinned
    // to CPU 1, where a real-time busy loop runs for 0.4 s.
    const table = syscallTable!;
    const proc = await new LocalExecutor({ watchdog: false }).spawn({
      argv: ['bash', '--norc', '--noprofile', '-c', 'cat | tr a-z A-Z'],
      cwd: '/tmp',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' },
      tty: true,
    });
    live.push(proc);
    const pid = proc.pid!;
    const comm = (p: number) => readFileSync(`/proc/${p}/comm`, 'utf8').trim();
    const member = (sample: ForegroundSample, name: string) => sample.members.find((m) => comm(m.pid) === name)!;
    let before!: ForegroundSample;
    await vi.waitFor(() => {
      before = sampleForeground(pid, table, proc.terminal)!;
      expect(before.members.map((m) => comm(m.pid)).sort()).toEqual(['bash', 'cat', 'tr']);
      expect(decideInputWait(before, proc.terminal!.path, table).kind).toBe('waiting');
    }, PATIENT);
    const tr = member(before, 'tr');
    execFileSync('taskset', ['-p', '-c', '1', String(tr.pid)], { stdio: 'ignore' });
    const spinner = spawn('chrt', ['-f', '50', 'taskset', '-c', '1', 'python3', '-c', SPIN], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await proc.write('hello\n');
      const cat = member(before, 'cat');
      // cat has read the line, written it to the pipe and gone back to its read.
      await vi.waitFor(() => {
        const now = sampleForeground(pid, table, proc.terminal)!;
        expect(member(now, 'cat').runCount).not.toBe(cat.runCount);
        expect(member(now, 'cat').state).toBe('S');
      }, PATIENT);
      const after = sampleForeground(pid, table, proc.terminal)!;
      const trNow = member(after, 'tr');
      // Woken, not yet run: the precondition of the race.
      expect({ state: trNow.state, runCount: trNow.runCount }).toEqual({ state: 'R', runCount: tr.runCount });
      const torn = { ...after, members: after.members.map((m) => (m.pid === tr.pid ? tr : m)) };
      expect(unchangedSince(pid, torn)).toBe(false);
    } finally {
      spinner.kill('SIGKILL');
    }
  });
});

/** Busy for 0.4 s: on CPU 1 under SCHED_FIFO it keeps a pinned process there from running. */
const SPIN = 'import time\nend = time.time() + 0.4\nwhile time.time() < end:\n    pass';
