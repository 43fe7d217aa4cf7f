import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SYSCALLS,
  classifyMember,
  decideInputWait,
  type ForegroundSample,
  type MemberSample,
  type SyscallTable,
} from '../../src/input-wait/decide.js';

// What /proc said in real situations, recorded by test/fixtures/input-wait/record.mjs on x86-64 (Linux 6.x).
interface Fixture {
  situation: string;
  arch: string;
  ptsPath: string;
  sample: ForegroundSample;
}

function fixture(name: string): Fixture {
  const url = new URL(`../fixtures/input-wait/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as Fixture;
}

const x64 = SYSCALLS.x64 as SyscallTable;
const arm64 = SYSCALLS.arm64 as SyscallTable;

function verdict(name: string, baseline?: ReadonlyMap<number, number>) {
  const { sample, ptsPath } = fixture(name);
  return decideInputWait(sample, ptsPath, x64, baseline);
}

/** The fixture's only (or first) member, for edits. */
function member(name: string, index = 0): { fx: Fixture; m: MemberSample } {
  const fx = fixture(name);
  const m = fx.sample.members[index];
  if (!m) throw new Error(`${name} has no member ${index}`);
  return { fx, m };
}

const withMembers = (fx: Fixture, members: MemberSample[]): ForegroundSample => ({ ...fx.sample, members });

describe('decideInputWait on recorded samples', () => {
  it.each([
    ['bash-prompt', 'bash readline prompt (pselect6 on fd 0)'],
    ['python-prompt', 'python REPL prompt'],
    ['python-input', "python input('name? ') without readline"],
    ['cat', 'cat reading the terminal'],
    ['read-x', 'bash read x'],
    ['read-s', 'bash read -s'],
    ['read-with-timeout', 'bash read -t 30 (pselect6 with a timeout)'],
    ['getpass', 'python getpass reading /dev/tty on fd 3'],
    ['less-prompt', 'less reading /dev/tty while its shell waits for the pipeline'],
    ['cat-with-zombie', 'cat with an unreaped zombie child in its group'],
    ['input-with-parked-thread', 'python input() with another thread parked on a lock (futex)'],
  ])('says %s is waiting for input (%s)', (name) => {
    const v = verdict(name);
    expect(v.kind).toBe('waiting');
  });

  it.each([
    ['sleep', 'sleep in clock_nanosleep'],
    ['sleep-pipe-cat', 'sleep 5 | cat: cat reads a pipe, not the terminal'],
    ['computing', 'a busy loop in state R'],
    ['accept-server', 'a server blocked in accept'],
    ['input-with-sleeping-thread', 'python input() while another thread sleeps'],
  ])('says %s is busy (%s)', (name) => {
    expect(verdict(name).kind).toBe('busy');
  });

  it.each([
    ['node-http-and-stdin', 'a node HTTP server whose loop also reads the terminal: its listening socket can wake it'],
    ['select-tty-and-socket', 'a select watching the terminal and a socket'],
    ['select-tty-and-socket-except', 'a select reading the terminal and watching a socket for exceptions'],
    ['poll-tty-and-socket-pri', "a poll reading the terminal and watching a socket's priority data"],
  ])('cannot tell for %s (%s)', (name) => {
    expect(verdict(name).kind).toBe('unknown');
  });

  it.each([['asyncio-sleep', 'python asyncio sleep: its loop watches only its own wake-up, and no thread reads']])(
    'says %s is busy (%s)',
    (name) => {
      expect(verdict(name).kind).toBe('busy');
    },
  );

  it('names the processes reading the terminal', () => {
    const v = verdict('less-prompt');
    const less = fixture('less-prompt').sample.members[1];
    expect(v.kind === 'waiting' && v.readers.map((r) => r.pid)).toEqual([less?.pid]);
  });
});

describe('classifyMember on recorded samples', () => {
  const classify = (name: string, index = 0) => {
    const { fx, m } = member(name, index);
    return classifyMember(m, fx.ptsPath, x64);
  };

  it('sees a readline prompt as reading the terminal', () => {
    expect(classify('bash-prompt')).toBe('tty-read');
  });

  it('sees a read of /dev/tty as reading the terminal', () => {
    expect(classify('getpass')).toBe('tty-read');
  });

  it('tells apart the members of sleep 5 | cat', () => {
    expect(classify('sleep-pipe-cat', 0)).toBe('child-wait'); // bash waiting for the pipeline
    expect(classify('sleep-pipe-cat', 1)).toBe('pipe-read'); // cat
    expect(classify('sleep-pipe-cat', 2)).toBe('busy'); // sleep
  });

  it('counts a zombie as gone', () => {
    expect(classify('cat-with-zombie', 1)).toBe('gone');
  });

  it('counts a process in state R as busy', () => {
    expect(classify('computing')).toBe('busy');
  });

  it('counts epoll as ambiguous when its set could not be read', () => {
    const { fx, m } = member('node-repl');
    const { watchedFds: _dropped, ...unread } = m;
    expect(classifyMember(unread, fx.ptsPath, x64)).toBe('unknown');
  });
});

describe('event loops (epoll, select, poll on the terminal and their own wake-ups)', () => {
  it('sees the node REPL reading the terminal, with its loop timer (V8 housekeeping, 8 s)', () => {
    const v = verdict('node-repl');
    expect(v.kind).toBe('waiting');
    expect(v.kind === 'waiting' && v.timer?.timeoutMs).toBe(8094);
  });

  it('sees ipython (prompt_toolkit on asyncio) reading the terminal, with its 0.5 s tick', () => {
    const v = verdict('ipython-prompt');
    expect(v.kind === 'waiting' && v.timer?.timeoutMs).toBe(500);
  });

  it('passes on the timer of a loop that reads stdin beside a pending setTimeout', () => {
    const v = verdict('node-stdin-and-timer');
    expect(v.kind === 'waiting' && v.timer && v.timer.timeoutMs > 29_000).toBe(true);
  });

  it('has no timer for a loop that waits forever', () => {
    const { fx, m } = member('node-repl');
    const v = decideInputWait(withMembers(fx, [{ ...m, timeoutMs: -1 }]), fx.ptsPath, x64);
    expect(v.kind === 'waiting' && v.timer).toBeUndefined();
  });

  it('gives a wait on the terminal alone its timer too: vim telling a lone Esc from a key redraws when it ends', () => {
    const { fx, m } = member('bash-prompt');
    const v = decideInputWait(withMembers(fx, [{ ...m, timeoutMs: 1000 }]), fx.ptsPath, x64);
    expect(v.kind === 'waiting' && v.timer).toEqual({ pid: m.pid, timeoutMs: 1000, runCount: m.runCount });
  });

  it('cannot tell when the set holds something that is not its own wake-up', () => {
    const { fx, m } = member('node-repl');
    expect(decideInputWait(withMembers(fx, [{ ...m, ownWakeupFds: [] }]), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('sees python -m asyncio reading the terminal on its second thread while the loop waits on its wake-up', () => {
    const v = verdict('asyncio-repl');
    expect(v.kind).toBe('waiting');
    expect(v.kind === 'waiting' && v.timer).toBeUndefined();
  });

  it('is busy when that loop has no thread reading the terminal', () => {
    const { fx, m } = member('asyncio-repl');
    const parked = { ...m, otherThreads: m.otherThreads.map(({ wait: _w, ...t }) => ({ ...t, syscall: 202 })) };
    expect(decideInputWait(withMembers(fx, [parked]), fx.ptsPath, x64).kind).toBe('busy');
  });

  it("carries the loop's timer when its reader is a thread", () => {
    const { fx, m } = member('asyncio-repl');
    const v = decideInputWait(withMembers(fx, [{ ...m, timeoutMs: 300 }]), fx.ptsPath, x64);
    expect(v.kind === 'waiting' && v.timer?.timeoutMs).toBe(300);
  });
});

describe('input written just before the sample (baseline run counts)', () => {
  it('is busy while the reader has not run since the write: it may still sit in its old read', () => {
    const { fx, m } = member('cat');
    expect(decideInputWait(fx.sample, fx.ptsPath, x64, new Map([[m.pid, m.runCount]])).kind).toBe('busy');
  });

  it('is waiting once the reader has run since the write', () => {
    const { fx, m } = member('cat');
    expect(decideInputWait(fx.sample, fx.ptsPath, x64, new Map([[m.pid, m.runCount - 1]])).kind).toBe('waiting');
  });

  it('is waiting when the reader did not exist at the write (a new program took over the terminal)', () => {
    const { fx } = member('cat');
    expect(decideInputWait(fx.sample, fx.ptsPath, x64, new Map([[1, 7]])).kind).toBe('waiting');
  });

  it('takes a run count that could not be read as no evidence of having run', () => {
    const { fx, m } = member('cat');
    const unread = withMembers(fx, [{ ...m, runCount: Number.NaN }]);
    expect(decideInputWait(unread, fx.ptsPath, x64, new Map([[m.pid, m.runCount]])).kind).toBe('busy');
  });

  it('needs only one of several readers to have run', () => {
    const { fx, m } = member('less-prompt', 1);
    const baseline = new Map(fx.sample.members.map((x) => [x.pid, x.runCount]));
    expect(decideInputWait(fx.sample, fx.ptsPath, x64, baseline).kind).toBe('busy');
    baseline.set(m.pid, m.runCount - 2);
    expect(decideInputWait(fx.sample, fx.ptsPath, x64, baseline).kind).toBe('waiting');
  });
});

describe('edited samples: what /proc can also say', () => {
  it('cannot tell when a member vanished between listing and reading its syscall', () => {
    const { fx, m } = member('sleep-pipe-cat', 1);
    const members = fx.sample.members.map((x) => (x === m ? { ...m, syscall: undefined } : x));
    expect(decideInputWait(withMembers(fx, members), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('cannot tell for a reader whose syscall could not be read', () => {
    const { fx, m } = member('read-x');
    expect(decideInputWait(withMembers(fx, [{ ...m, syscall: undefined }]), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('cannot tell for a stopped job', () => {
    const { fx, m } = member('cat');
    expect(decideInputWait(withMembers(fx, [{ ...m, state: 'T' }]), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('cannot tell when the group has no live member', () => {
    const { fx, m } = member('cat-with-zombie', 1);
    expect(decideInputWait(withMembers(fx, [m]), fx.ptsPath, x64).kind).toBe('unknown');
    expect(decideInputWait(withMembers(fx, []), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('is busy when another thread of the reader is running', () => {
    const { fx, m } = member('python-prompt');
    const busyThread = { ...m, otherThreads: [{ tid: m.pid + 1, state: 'R' }] };
    expect(decideInputWait(withMembers(fx, [busyThread]), fx.ptsPath, x64).kind).toBe('busy');
    const idleThread = { ...m, otherThreads: [{ tid: m.pid + 1, state: 'S' }] };
    expect(decideInputWait(withMembers(fx, [idleThread]), fx.ptsPath, x64).kind).toBe('waiting');
  });

  it('is busy when another thread of the reader waits on the network', () => {
    const { fx, m } = member('input-with-parked-thread');
    const accepting = { ...m, otherThreads: m.otherThreads.map((t) => ({ ...t, syscall: 288 })) }; // accept4
    expect(decideInputWait(withMembers(fx, [accepting]), fx.ptsPath, x64).kind).toBe('busy');
  });

  it('ignores a thread whose syscall could not be read, as long as it is not running', () => {
    const { fx, m } = member('input-with-sleeping-thread');
    const unread = { ...m, otherThreads: m.otherThreads.map(({ syscall: _nr, ...t }) => t) };
    expect(decideInputWait(withMembers(fx, [unread]), fx.ptsPath, x64).kind).toBe('waiting');
  });

  it('is busy when a select watches only a socket', () => {
    const { fx, m } = member('select-tty-and-socket');
    expect(decideInputWait(withMembers(fx, [{ ...m, watchedFds: [3] }]), fx.ptsPath, x64).kind).toBe('busy');
  });

  it('waits when the other fd a select watches is its own wake-up (a self-pipe, a socketpair), and only then', () => {
    const { fx, m } = member('select-tty-and-socket');
    const socket = m.watchedFds!.find((fd) => m.fdTargets[fd]?.startsWith('socket:'))!;
    expect(decideInputWait(withMembers(fx, [m]), fx.ptsPath, x64).kind).toBe('unknown');
    const own = { ...m, ownWakeupFds: [socket] };
    expect(decideInputWait(withMembers(fx, [own]), fx.ptsPath, x64).kind).toBe('waiting');
    // Its own wake-up alone, without the terminal, is not reading input.
    const alone = { ...own, watchedFds: [socket] };
    expect(decideInputWait(withMembers(fx, [alone]), fx.ptsPath, x64).kind).toBe('busy');
  });

  it('is still waiting when a select also watches the terminal itself for writing', () => {
    const { fx, m } = member('bash-prompt');
    expect(decideInputWait(withMembers(fx, [{ ...m, otherWatchedFds: [0] }]), fx.ptsPath, x64).kind).toBe('waiting');
  });

  it('cannot tell when the fds a select watches could not be read from its memory', () => {
    const { fx, m } = member('bash-prompt');
    const { watchedFds: _dropped, ...unread } = m;
    expect(decideInputWait(withMembers(fx, [unread]), fx.ptsPath, x64).kind).toBe('unknown');
  });

  it('is busy when the read is on a file, or on another terminal', () => {
    const { fx, m } = member('cat');
    const onFile = { ...m, fdTargets: { 0: '/etc/passwd' } };
    expect(decideInputWait(withMembers(fx, [onFile]), fx.ptsPath, x64).kind).toBe('busy');
    expect(decideInputWait(fx.sample, '/dev/pts/999', x64).kind).toBe('busy');
  });

  it('is busy when one member reads the terminal and another computes', () => {
    const cat = member('cat').m;
    const { fx, m } = member('computing');
    expect(decideInputWait(withMembers(fx, [cat, m]), fixture('cat').ptsPath, x64).kind).toBe('busy');
  });
});

describe('arm64 syscall numbers', () => {
  // x86-64 → arm64 for the calls in the recordings (arm64 has no plain epoll_wait: epoll_pwait stands in).
  const TO_ARM64: Record<number, number> = {
    0: 63, // read
    7: 73, // poll → ppoll
    61: 260, // wait4
    202: 98, // futex
    230: 115, // clock_nanosleep
    232: 22, // epoll_wait → epoll_pwait
    270: 72, // pselect6
    281: 22, // epoll_pwait
    288: 242, // accept4
  };
  const arm = (nr: number) => TO_ARM64[nr] ?? nr;
  const toArm64 = (sample: ForegroundSample): ForegroundSample => ({
    ...sample,
    members: sample.members.map((m) => ({
      ...m,
      ...(typeof m.syscall === 'object' ? { syscall: { ...m.syscall, nr: arm(m.syscall.nr) } } : {}),
      otherThreads: m.otherThreads.map((t) => ({
        ...t,
        ...(t.syscall === undefined ? {} : { syscall: arm(t.syscall) }),
        ...(t.wait && typeof t.wait.syscall === 'object'
          ? { wait: { ...t.wait, syscall: { ...t.wait.syscall, nr: arm(t.wait.syscall.nr) } } }
          : {}),
      })),
    })),
  });

  it.each([
    ['bash-prompt', 'waiting'],
    ['cat', 'waiting'],
    ['getpass', 'waiting'],
    ['less-prompt', 'waiting'],
    ['cat-with-zombie', 'waiting'],
    ['sleep', 'busy'],
    ['sleep-pipe-cat', 'busy'],
    ['accept-server', 'busy'],
    ['computing', 'busy'],
    ['node-repl', 'waiting'],
    ['ipython-prompt', 'waiting'],
    ['asyncio-repl', 'waiting'],
    ['node-http-and-stdin', 'unknown'],
    ['asyncio-sleep', 'busy'],
    ['select-tty-and-socket', 'unknown'],
    ['poll-tty-and-socket-pri', 'unknown'],
    ['read-with-timeout', 'waiting'],
    ['input-with-sleeping-thread', 'busy'],
    ['input-with-parked-thread', 'waiting'],
  ])('decides %s as %s with the arm64 table', (name, kind) => {
    const fx = fixture(name);
    expect(decideInputWait(toArm64(fx.sample), fx.ptsPath, arm64).kind).toBe(kind);
  });

  it('needs the table of the machine the sample came from', () => {
    const fx = fixture('cat');
    // arm64's read (63) is not a read on x86-64, so nothing would be seen reading the terminal.
    expect(decideInputWait(toArm64(fx.sample), fx.ptsPath, x64).kind).toBe('busy');
  });
});
