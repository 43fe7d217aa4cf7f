import { readlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyWatched,
  parseEpollFdinfo,
  parseNetUnix,
  readEpollSet,
  socketPairs,
  type OpenFd,
} from '../../src/linux/epoll.js';
import { readProcText } from '../../src/linux/proc-read.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import type { ExecProcess } from '../../src/spawn/types.js';

// Recorded from `node -i` (v20.20) at its prompt: its main thread in epoll_pwait on fd 14.
const NODE_REPL_EPOLL = [
  'pos:\t0',
  'flags:\t02000002',
  'mnt_id:\t15',
  'ino:\t1057',
  'tfd:       15 events:       19 data:                f  pos:0 ino:25b6a3 sdev:f',
  'tfd:       17 events:       19 data:               11  pos:0 ino:40e sdev:10',
  'tfd:       21 events:       19 data:               15  pos:0 ino:3 sdev:1a',
  '',
].join('\n');
const NODE_REPL_FDS = new Map<number, OpenFd>([
  [0, { link: '/dev/pts/0', ino: 3 }],
  [14, { link: 'anon_inode:[eventpoll]', ino: 1057 }],
  [15, { link: 'pipe:[2471587]', ino: 0x25b6a3 }],
  [16, { link: 'pipe:[2471587]', ino: 0x25b6a3 }],
  [17, { link: 'anon_inode:[eventfd]', ino: 0x40e }],
  [21, { link: '/dev/pts/0', ino: 3 }],
]);

// Recorded from `ipython` (prompt_toolkit on asyncio): epoll_wait on fd 5, watching one end of a socketpair (6, 7).
const IPYTHON_EPOLL = [
  'tfd:        6 events:       19 data:                6  pos:0 ino:25b6f2 sdev:9',
  'tfd:        0 events:       19 data:     7ff400000000  pos:0 ino:3 sdev:1a',
].join('\n');
const NET_UNIX = [
  'Num       RefCount Protocol Flags    Type St Inode Path',
  '00000000ddaabfcc: 00000003 00000000 00000000 0001 03 2471666',
  '00000000970c4ada: 00000003 00000000 00000000 0001 03 2471667',
  '00000000faa3c647: 00000002 00000000 00010000 0001 01 2471670 /run/some.sock',
  '0000000011111111: 00000003 00000000 00000000 0001 03 2471671',
  '',
].join('\n');

describe('parseEpollFdinfo', () => {
  it('reads each watched fd, its events and the identity of its file, and skips the other lines', () => {
    expect(parseEpollFdinfo(NODE_REPL_EPOLL)).toEqual([
      { fd: 15, events: 0x19, ino: 0x25b6a3, sdev: 0xf },
      { fd: 17, events: 0x19, ino: 0x40e, sdev: 0x10 },
      { fd: 21, events: 0x19, ino: 3, sdev: 0x1a },
    ]);
    expect(parseEpollFdinfo('pos:\t0\nflags:\t02\n')).toEqual([]);
  });
});

describe('classifyWatched', () => {
  it("node's REPL: its terminal, a self-pipe and an eventfd, nothing anyone else can wake", () => {
    const kinds = classifyWatched(parseEpollFdinfo(NODE_REPL_EPOLL), NODE_REPL_FDS, '/dev/pts/0');
    expect(kinds).toEqual([
      { fd: 15, kind: 'own-wakeup' },
      { fd: 17, kind: 'own-wakeup' },
      { fd: 21, kind: 'terminal' },
    ]);
  });

  it('a pipe held once is a pipe to another process; a terminal that is not the session’s is someone else’s', () => {
    const fds = new Map(NODE_REPL_FDS);
    fds.delete(16);
    fds.set(21, { link: '/dev/pts/7', ino: 3 });
    expect(classifyWatched(parseEpollFdinfo(NODE_REPL_EPOLL), fds, '/dev/pts/0').map((c) => c.kind)).toEqual([
      'other',
      'own-wakeup',
      'other',
    ]);
  });

  it('an fd closed, or its number reused for another file, since it was added is unknown, never quiet', () => {
    const fds = new Map(NODE_REPL_FDS);
    fds.delete(17);
    fds.set(15, { link: 'pipe:[2471587]', ino: 42 });
    expect(classifyWatched(parseEpollFdinfo(NODE_REPL_EPOLL), fds, '/dev/pts/0').map((c) => c.kind)).toEqual([
      'other',
      'other',
      'terminal',
    ]);
  });

  it('ipython: one end of a socketpair it holds both ends of is its own wake-up; a lone socket is not', () => {
    const fds = new Map<number, OpenFd>([
      [0, { link: '/dev/pts/0', ino: 3 }],
      [6, { link: 'socket:[2471666]', ino: 0x25b6f2 }],
      [7, { link: 'socket:[2471667]', ino: 0x25b6f3 }],
    ]);
    const held = new Set([2471666, 2471667]);
    const pairs = socketPairs(held, parseNetUnix(NET_UNIX));
    expect(classifyWatched(parseEpollFdinfo(IPYTHON_EPOLL), fds, '/dev/pts/0', pairs).map((c) => c.kind)).toEqual([
      'own-wakeup',
      'terminal',
    ]);
    fds.delete(7);
    expect(classifyWatched(parseEpollFdinfo(IPYTHON_EPOLL), fds, '/dev/pts/0', pairs)[0]!.kind).toBe('other');
  });
});

describe('socketPairs', () => {
  it('pairs connected unnamed sockets with consecutive inodes, both held; never a named or listening one', () => {
    const rows = parseNetUnix(NET_UNIX);
    expect(rows[2]).toEqual({ ino: 2471670, type: 1, state: 1, path: '/run/some.sock' });
    expect([...socketPairs(new Set([2471666, 2471667, 2471670, 2471671]), rows)]).toEqual([
      [2471666, 2471667],
      [2471667, 2471666],
    ]);
    // One end held by someone else: no pair.
    expect(socketPairs(new Set([2471667, 2471670]), rows).size).toBe(0);
  });
});

describe('readEpollSet on real event loops', () => {
  const live: ExecProcess[] = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((p) => p.terminate()));
  });

  /**
   * Starts `argv` in a terminal, waits for `ready` in its output, and reads the epoll set its main thread waits on,
   * once it watches the terminal: node prints its prompt a turn or two before it starts reading stdin.
   */
  async function epollWaitOf(argv: string[], ready: RegExp) {
    const proc = await new LocalExecutor({ watchdog: false }).spawn({
      argv,
      cwd: '/tmp',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm', HOME: '/tmp', NODE_REPL_HISTORY: '' },
      tty: true,
    });
    live.push(proc);
    let out = '';
    proc.onData((chunk) => (out += chunk.toString()));
    const pid = proc.pid!;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const syscall = readProcText(`/proc/${pid}/syscall`)?.split(' ');
      // epoll_wait (232) or epoll_pwait (281): its first argument is the epoll fd.
      if (ready.test(out) && (syscall?.[0] === '232' || syscall?.[0] === '281')) {
        const terminal = readlinkSync(`/proc/${pid}/fd/0`);
        const watched = readEpollSet(pid, parseInt(syscall[1]!, 16), terminal);
        if (watched?.some((w) => w.kind === 'terminal')) return watched;
      }
      if (Date.now() > deadline) throw new Error(`never waited in epoll on its terminal; printed: ${out}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("node's REPL waits on its terminal and its own wake-ups only", async () => {
    const watched = await epollWaitOf([process.execPath, '-i'], /for more information[\s\S]*> /);
    expect(watched?.map((w) => w.kind)).toContain('terminal');
    expect(watched?.map((w) => w.kind)).toContain('own-wakeup');
    expect(watched?.filter((w) => w.kind === 'other')).toEqual([]);
  });

  it('a node program that reads its terminal and serves HTTP also waits on the network', async () => {
    const script = [
      "require('http').createServer((q, s) => s.end('hi')).listen(0, '127.0.0.1', () => console.log('listening'));",
      "process.stdin.on('data', (d) => console.log('got', String(d).trim()));",
    ].join('\n');
    const watched = await epollWaitOf([process.execPath, '-e', script], /listening/);
    expect(watched?.map((w) => w.kind)).toContain('terminal');
    expect(watched?.filter((w) => w.kind === 'other').length).toBeGreaterThan(0);
  });

  /**
   * Runs python `code` in a terminal (after `prefix`, a command that execs it); it prints `ready <fd>` and then waits
   * in epoll on its terminal and that fd.
   */
  async function pythonWatching(code: string, prefix: string[] = []) {
    const watched = await epollWaitOf([...prefix, 'python3', '-c', code], /ready \d+/);
    const fd = watched.find((w) => w.kind !== 'terminal')?.fd;
    return { watched, kind: watched.find((w) => w.fd === fd)?.kind };
  }

  it('a connected pair of its own is its own wake-up, as the kernel says, whatever the inodes of its ends', async () => {
    // Connected through a listener (then closed), with sockets made between the two ends: the ends' inodes are not
    // consecutive, and the accepted end carries the listener's name, so no guess from /proc/net/unix pairs them.
    // socketpair()'s two ends are consecutive only most of the time (each CPU numbers inodes from a batch of its own),
    // and a pair missed left python -m asyncio's loop looking woken from outside for good.
    const { watched, kind } = await pythonWatching(
      [
        'import os, select, socket',
        "name = '\\0ue-epoll-test-%d' % os.getpid()",
        'listener = socket.socket(socket.AF_UNIX); listener.bind(name); listener.listen()',
        'mine = socket.socket(socket.AF_UNIX); mine.connect(name)',
        'between = [socket.socket(socket.AF_UNIX) for _ in range(3)]',
        'other_end, _ = listener.accept(); listener.close()',
        'ep = select.epoll(); ep.register(0, select.EPOLLIN); ep.register(mine.fileno(), select.EPOLLIN)',
        "print('ready', mine.fileno(), flush=True)",
        'ep.poll()',
      ].join('\n'),
    );
    expect(watched.map((w) => w.kind)).toContain('terminal');
    expect(kind).toBe('own-wakeup');
  });

  it('a socket whose other end another process holds is not its own wake-up, though its inode follows another of its own', async () => {
    // Two socketpairs with four consecutive inodes; a child keeps the first pair's first end and the second pair's
    // last. The parent holds the two middle ends: consecutive, unnamed, connected, of one type, and no pair at all:
    // the child can write to the end the parent watches.
    const { kind } = await pythonWatching(
      [
        'import os, select, socket, time',
        'while True:',
        '    a, b = socket.socketpair(); c, d = socket.socketpair()',
        '    inodes = [os.fstat(s.fileno()).st_ino for s in (a, b, c, d)]',
        '    if inodes == list(range(inodes[0], inodes[0] + 4)): break',
        'if os.fork() == 0:',
        '    b.close(); c.close(); time.sleep(600); os._exit(0)',
        'a.close(); d.close()',
        'ep = select.epoll(); ep.register(0, select.EPOLLIN); ep.register(b.fileno(), select.EPOLLIN)',
        "print('ready', b.fileno(), flush=True)",
        'ep.poll()',
      ].join('\n'),
    );
    expect(kind).toBe('other');
  });

  it('asks about at most 16 sockets of a wait: past that none is its own wake-up, and a look stays cheap', async () => {
    // Thousands of watched sockets cost a second a look when each was asked about (the kernel walks its table of unix
    // sockets for each); 17 socketpairs of its own are past the cap, and so none of them counts as its own.
    const { watched } = await pythonWatching(
      [
        'import select, socket',
        'pairs = [socket.socketpair() for _ in range(17)]',
        'ep = select.epoll(); ep.register(0, select.EPOLLIN)',
        'for a, b in pairs: ep.register(a.fileno(), select.EPOLLIN)',
        "print('ready', pairs[0][0].fileno(), flush=True)",
        'ep.poll()',
      ].join('\n'),
    );
    const sockets = watched.filter((w) => w.link?.startsWith('socket:'));
    expect(sockets).toHaveLength(17);
    expect(sockets.every((w) => w.kind === 'other')).toBe(true);
  });

  /** Python waiting in epoll on its terminal, a self-pipe's read end and an eventfd, holding `extra` more fds. */
  async function selfPipeAndEventfd(extra: number) {
    const watched = await epollWaitOf(
      [
        'python3',
        '-c',
        [
          'import os, select',
          `extra = [os.dup(1) for _ in range(${extra})]`,
          'r, w = os.pipe(); e = os.eventfd(0)',
          'ep = select.epoll()',
          'for fd in (0, r, e): ep.register(fd, select.EPOLLIN)',
          "print('ready', r, e, flush=True)",
          'ep.poll()',
        ].join('\n'),
      ],
      /ready \d+/,
    );
    const kindOf = (link: RegExp) => watched.find((w) => w.link !== undefined && link.test(w.link))?.kind;
    return { pipe: kindOf(/^pipe:/), eventfd: kindOf(/eventfd/), terminal: watched.some((w) => w.kind === 'terminal') };
  }

  it('reads at most 256 fds of a process a look: past that a self-pipe is not its own, its eventfd still is', async () => {
    // Every fd's link and inode were read to find a pipe's other end: 5 000 fds cost the server 18 ms a look, in a loop.
    expect(await selfPipeAndEventfd(200)).toEqual({ pipe: 'own-wakeup', eventfd: 'own-wakeup', terminal: true });
    expect(await selfPipeAndEventfd(300)).toEqual({ pipe: 'other', eventfd: 'own-wakeup', terminal: true });
  });

  it('in another network namespace, where the kernel cannot be asked from here, takes a socketpair by its inodes', async () => {
    // A namespace of its own, as the sandbox with the network off has: sock_diag answers only for ours, so the pair
    // is guessed from /proc/<pid>/net/unix (two unnamed, connected ends with consecutive inodes, made so here).
    const { kind } = await pythonWatching(
      [
        'import os, select, socket',
        'while True:',
        '    a, b = socket.socketpair()',
        '    if os.fstat(b.fileno()).st_ino == os.fstat(a.fileno()).st_ino + 1: break',
        'ep = select.epoll(); ep.register(0, select.EPOLLIN); ep.register(a.fileno(), select.EPOLLIN)',
        "print('ready', a.fileno(), flush=True)",
        'ep.poll()',
      ].join('\n'),
      ['unshare', '--user', '--map-root-user', '--net'],
    );
    expect(kind).toBe('own-wakeup');
  });

  it('says nothing for an fd that is not an epoll set', async () => {
    expect(readEpollSet(process.pid, 0, undefined)).toBeUndefined();
  });
});
