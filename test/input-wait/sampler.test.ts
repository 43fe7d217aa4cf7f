import { afterEach, describe, expect, it } from 'vitest';
import { sampleForeground, syscallTable } from '../../src/input-wait/sampler.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import type { MemberSample } from '../../src/input-wait/decide.js';
import type { ExecProcess } from '../../src/spawn/types.js';

// What the sampler reads of real waits: each program prints 'ready', then blocks in one call on its terminal and a
// socketpair it holds both ends of (its own wake-up), with a known timeout.
const live: ExecProcess[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((p) => p.terminate()));
});

/** Starts `python3 -c` in a terminal and samples its main thread once it waits in a call of `family`. */
async function waitOf(code: string, family: number[]): Promise<MemberSample> {
  const table = syscallTable!;
  const proc = await new LocalExecutor({ watchdog: false }).spawn({
    argv: ['python3', '-c', code],
    cwd: '/tmp',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb', HOME: process.env.HOME ?? '/tmp' },
    tty: true,
  });
  live.push(proc);
  let out = '';
  proc.onData((chunk) => (out += chunk.toString()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const member = sampleForeground(proc.pid!, table)?.members[0];
    const nr = typeof member?.syscall === 'object' ? member.syscall.nr : undefined;
    if (out.includes('ready') && member && nr !== undefined && family.includes(nr)) return member;
    if (Date.now() > deadline) throw new Error(`never waited in ${family.join('/')}; printed: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const PAIR = "import select, socket, sys\na, b = socket.socketpair()\nprint('ready', flush=True)\n";

describe.skipIf(syscallTable === undefined)('the sampler on real waits', () => {
  const table = syscallTable!;

  it.each([
    ['select (a timeval)', 'select.select([0, a], [], [], 2.5)', table.select],
    [
      'poll (an int of ms)',
      'p = select.poll()\np.register(0, select.POLLIN)\np.register(a, select.POLLIN)\np.poll(2500)',
      table.poll,
    ],
    [
      'epoll (an int of ms)',
      'e = select.epoll()\ne.register(0, select.EPOLLIN)\ne.register(a, select.EPOLLIN)\ne.poll(2.5)',
      table.epoll,
    ],
  ])('reads the timeout of %s', async (_name, call, family) => {
    const member = await waitOf(PAIR + call, family);
    expect(member.timeoutMs).toBeGreaterThan(2400);
    expect(member.timeoutMs).toBeLessThanOrEqual(2500);
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
