/**
 * Situations an agent meets in a terminal, each with the state a truthful answer reports and everything the answer
 * must contain. Plain data: the scenario suite asserts on it, and the benchmark replays it to measure accuracy and
 * wasted wait (for input-wait returns versus the deadline rule).
 *
 * Every scenario runs `cmd` with exec_command (tty, bash -c, no login), writes each `setup` step with write_stdin,
 * then makes the measured call: write_stdin with `input`, or, without `input`, the exec_command call itself.
 */
import type { SessionState } from '../../src/index.js';

/** One write before the measured call. A plain string waits up to 10 s and must end waiting for input. */
export interface ScenarioStep {
  chars: string;
  yieldTimeMs?: number;
  expectState?: SessionState;
}

export interface InputWaitScenario {
  name: string;
  /** Programs it runs beyond bash, python3 and node (test/helpers/needs.ts): skipped, saying so, without them. */
  needs?: string[];
  /** It makes an IP socket: the Landlock backend allows none with the network off (docs/sandbox.md). */
  sockets?: boolean;
  /** The exec_command line. */
  cmd: string;
  /** What exec_command must report when it is not the measured call. Default waiting_for_input. */
  startState?: SessionState;
  /** exec_command's yield when it is not the measured call. Default 10000. */
  startYieldTimeMs?: number;
  setup?: (string | ScenarioStep)[];
  /** Chars of the measured write_stdin; absent: the measured call is exec_command. */
  input?: string;
  expectState: SessionState;
  /** Pieces the measured call's output must hold, in this order (a piece listed twice must occur twice). */
  expectOutput: string[];
  /** The measured call's output exactly, when that is what matters (e.g. nothing at all). */
  expectExactOutput?: string;
  /** Pieces that must not appear anywhere in the measured call's output (a typed secret). */
  rejectOutput?: string[];
  /** Whether the answer flags a password prompt (echo off, canonical). Default: must not. */
  expectSecret?: boolean;
  expectExitCode?: number;
  /** The measured call's yield time. */
  yieldTimeMs: number;
  /** The measured call's max_output_tokens, when the default (10000) would truncate what must be checked. */
  maxOutputTokens?: number;
  /** The program needs at least this long before the answer is complete (its own sleeps). */
  minWallMs?: number;
}

/** An interactive bash with known prompts and no startup files. */
const BASH_I = `PS1='$ ' PS2='> ' bash --norc --noprofile -i`;
/**
 * Debian's python3, as for ipython3 below: a version manager's shim in PATH (pyenv's is a bash script) took 2.3-2.9 s
 * to start python on a busy machine, where the real one took 0.5 s, and every start was timed with it.
 */
const PYTHON = '/usr/bin/python3';
const PY = `${PYTHON} -q -i`;
/** `python3 -c` running the statements in turn (no double quotes or `$` in them). */
const py = (...statements: string[]) => `${PYTHON} -c "${statements.join('; ')}"`;
const PROMPT = '$ ';
const NODE_REPL = 'node -i';
/** `node -e` running the code (no double quotes in it). */
const node = (code: string) => `node -e "${code}"`;
/**
 * Debian's ipython3 (the package), so a Python version manager's shims stay out of the way. Its profile goes in the
 * session's folder (a workspace the suite removes): with the home read-only, as in the sandbox, IPython makes one in
 * a new temporary folder at each start and never removes it.
 */
const IPYTHON = 'IPYTHONDIR="$PWD/.ipython" /usr/bin/ipython3 --no-banner --colors=NoColor';
/** 600 short lines (about 5 KB): more than the terminal's input queue holds at once. */
const LINES_600 = Array.from({ length: 600 }, (_, i) => `line${i + 1}\n`).join('');

export const SCENARIOS: InputWaitScenario[] = [
  // Shells and REPLs at their prompt (readline: pselect6 on fd 0).
  {
    name: 'bash prompt after a command',
    cmd: BASH_I,
    input: 'echo hi\n',
    expectState: 'waiting_for_input',
    expectOutput: ['echo hi\r\n', 'hi\r\n', PROMPT],
    yieldTimeMs: 10_000,
  },
  {
    name: 'bash prompt at start',
    cmd: BASH_I,
    expectState: 'waiting_for_input',
    expectOutput: [PROMPT],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python REPL evaluates',
    cmd: PY,
    input: 'print(6*7)\n',
    expectState: 'waiting_for_input',
    expectOutput: ['print(6*7)\r\n', '42\r\n', '>>> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python block opens a continuation prompt',
    cmd: PY,
    input: 'for i in range(3):\n',
    expectState: 'waiting_for_input',
    expectOutput: ['for i in range(3):\r\n', '... '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python block runs after a blank line',
    cmd: PY,
    setup: ['for i in range(3):\n', '    print(i)\n'],
    input: '\n',
    expectState: 'waiting_for_input',
    expectOutput: ['0\r\n', '1\r\n', '2\r\n', '>>> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python takes pasted lines',
    cmd: PY,
    input: 'x = 4\ny = 5\nprint(x * y)\n',
    expectState: 'waiting_for_input',
    expectOutput: ['20\r\n', '>>> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'bash takes pasted lines',
    cmd: BASH_I,
    input: 'echo one\nsleep 0.2\necho two\n',
    expectState: 'waiting_for_input',
    expectOutput: ['one\r\n', 'two\r\n', PROMPT],
    minWallMs: 200,
    yieldTimeMs: 10_000,
  },
  // node's REPL waits in epoll, which could as well be the network: it must not claim to wait for input.

  // Programs reading the terminal directly.
  {
    name: 'read x waits',
    cmd: 'read x; echo got=$x',
    expectState: 'waiting_for_input',
    expectOutput: [],
    expectExactOutput: '',
    yieldTimeMs: 10_000,
  },
  {
    name: 'read x takes the answer',
    cmd: 'read x; echo got=$x',
    input: 'abc\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['abc\r\n', 'got=abc\r\n'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'read -p prompt',
    cmd: `read -p 'Continue? ' ans; echo ans=$ans`,
    expectState: 'waiting_for_input',
    expectOutput: ['Continue? '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'bash select menu',
    cmd: 'select c in red green; do echo chose $c; break; done',
    expectState: 'waiting_for_input',
    expectOutput: ['1) red\r\n', '2) green\r\n', '#? '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'bash select takes a choice',
    cmd: 'select c in red green; do echo chose $c; break; done',
    input: '2\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['chose green\r\n'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'read -s is a secret prompt',
    cmd: 'read -s x; echo got ${#x} chars',
    expectState: 'waiting_for_input',
    expectOutput: [],
    expectSecret: true,
    yieldTimeMs: 10_000,
  },
  {
    name: 'read -s does not echo the secret',
    cmd: 'read -s x; echo got ${#x} chars',
    input: 'hunter2\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['got 7 chars\r\n'],
    rejectOutput: ['hunter2'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python getpass is a secret prompt',
    cmd: py('import getpass', "p = getpass.getpass('Secret: ')", "print('len', len(p))"),
    expectState: 'waiting_for_input',
    expectOutput: ['Secret: '],
    expectSecret: true,
    yieldTimeMs: 10_000,
  },
  {
    name: 'python getpass does not echo the secret',
    cmd: py('import getpass', "p = getpass.getpass('Secret: ')", "print('len', len(p))"),
    input: 'pw123\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['len 5\r\n'],
    rejectOutput: ['pw123'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python input() prompt',
    cmd: py("n = input('name? ')", "print('hello', n)"),
    expectState: 'waiting_for_input',
    expectOutput: ['name? '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python input() takes the answer',
    cmd: py("n = input('name? ')", "print('hello', n)"),
    input: 'bob\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['bob\r\n', 'hello bob\r\n'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'read -t waits for input until its timeout',
    cmd: 'read -t 30 x; echo got=$x',
    expectState: 'waiting_for_input',
    expectOutput: [],
    expectExactOutput: '',
    yieldTimeMs: 10_000,
  },
  {
    name: 'a long paste into a read loop',
    cmd: 'while read -r l; do echo "got $l"; done',
    input: LINES_600,
    expectState: 'waiting_for_input',
    // The terminal echoes the paste as it takes it in, while the loop already answers the first lines: the two
    // interleave (`lingot line1e131`, seen under load), so only the last answer, after every echo, is looked for.
    expectOutput: ['got line600\r\n'],
    maxOutputTokens: 100_000,
    yieldTimeMs: 10_000,
  },
  {
    name: 'cat echoes a line twice',
    cmd: 'cat',
    input: 'meow\n',
    expectState: 'waiting_for_input',
    expectOutput: ['meow\r\n', 'meow\r\n'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'cat into a pipeline',
    cmd: 'cat | tr a-z A-Z',
    input: 'hello\n',
    expectState: 'waiting_for_input',
    expectOutput: ['hello\r\n', 'HELLO\r\n'],
    yieldTimeMs: 10_000,
  },
  // With TERM=dumb less first asks to press RETURN, then shows the data and waits at (END); it reads /dev/tty.
  {
    name: 'less waits at its prompt',
    cmd: `printf 'a\\nb\\n' | less`,
    input: '\r',
    expectState: 'waiting_for_input',
    expectOutput: ['a\r\n', 'b\r\n', '(END)'],
    yieldTimeMs: 10_000,
  },

  // Event loops that watch the terminal beside their own wake-ups (a pipe they hold both ends of).
  {
    name: 'gdb at its prompt after a command (poll on the terminal and its own pipes, no timeout)',
    needs: ['gdb'],
    cmd: 'gdb -q -nx',
    input: 'print 6*7\n',
    expectState: 'waiting_for_input',
    expectOutput: ['$1 = 42\r\n', '(gdb) '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'a select on the terminal and a self-pipe that another thread writes to 1.5 s later',
    cmd: py(
      'import os, select, threading, time',
      'r, w = os.pipe()',
      "threading.Thread(target=lambda: (time.sleep(1.5), os.write(w, b'x'))).start()",
      "print('ready', flush=True)",
      'select.select([0, r], [], [])',
      "print('woke')",
    ),
    expectState: 'exited',
    expectOutput: ['ready\r\n', 'woke\r\n'],
    expectExitCode: 0,
    yieldTimeMs: 10_000,
    minWallMs: 1400,
  },
  {
    name: 'a select on the terminal and a self-pipe with a 1.5 s timeout, then a line',
    cmd: py(
      'import os, select',
      'r, w = os.pipe()',
      "print('ready', flush=True)",
      'select.select([0, r], [], [], 1.5)',
      "print('late')",
    ),
    expectState: 'exited',
    expectOutput: ['ready\r\n', 'late\r\n'],
    expectExitCode: 0,
    yieldTimeMs: 10_000,
    minWallMs: 1400,
  },

  {
    name: 'gdb at its prompt at start',
    needs: ['gdb'],
    cmd: 'gdb -q -nx',
    expectState: 'waiting_for_input',
    expectOutput: ['(gdb) '],
    yieldTimeMs: 10_000,
  },

  // Event loops on epoll (node's libuv, Python's asyncio): the terminal, their own wake-ups, and timers.
  {
    name: 'node REPL at start (epoll on the terminal and its own wake-ups, V8 housekeeping timer 8 s off)',
    cmd: NODE_REPL,
    expectState: 'waiting_for_input',
    expectOutput: ['> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'node REPL after a line',
    cmd: NODE_REPL,
    input: '6*7\n',
    expectState: 'waiting_for_input',
    expectOutput: ['42\r\n', '> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'node REPL awaiting a 1.5 s timer, then its answer',
    cmd: NODE_REPL,
    input: "await new Promise(r => setTimeout(r, 1500)); 'done'\n",
    expectState: 'waiting_for_input',
    expectOutput: ["'done'\r\n", '> '],
    yieldTimeMs: 10_000,
    minWallMs: 1400,
  },
  {
    name: 'node readline.question at its prompt',
    cmd: node(
      `require('readline').createInterface({ input: process.stdin, output: process.stdout }).question('name? ', (a) => { console.log('hi ' + a); process.exit(0); })`,
    ),
    expectState: 'waiting_for_input',
    expectOutput: ['name? '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'node reading stdin with a setTimeout that prints 1.5 s later',
    cmd: node(`process.stdin.on('data', () => {}); setTimeout(() => console.log('late'), 1500); console.log('ready')`),
    expectState: 'waiting_for_input',
    expectOutput: ['ready\r\n', 'late\r\n'],
    yieldTimeMs: 10_000,
    minWallMs: 1400,
  },
  {
    name: 'a node HTTP server that also reads stdin (it waits on the network too)',
    sockets: true,
    cmd: node(
      `require('http').createServer().listen(0, '127.0.0.1', () => console.log('ready')); process.stdin.on('data', () => {})`,
    ),
    expectState: 'running',
    expectOutput: ['ready\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'ipython at start (prompt_toolkit on asyncio, a 0.5 s tick)',
    needs: ['/usr/bin/ipython3'],
    cmd: IPYTHON,
    expectState: 'waiting_for_input',
    expectOutput: ['In [1]: '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'ipython after a line',
    needs: ['/usr/bin/ipython3'],
    cmd: IPYTHON,
    input: '6*7\n',
    expectState: 'waiting_for_input',
    expectOutput: ['Out[1]: ', '42', 'In [2]: '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python -m asyncio REPL at start (a thread reads the terminal for the loop)',
    cmd: `${PYTHON} -q -m asyncio`,
    expectState: 'waiting_for_input',
    expectOutput: ['>>> import asyncio\r\n', '>>> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'python -m asyncio REPL awaits a sleep, then answers',
    cmd: `${PYTHON} -q -m asyncio`,
    input: 'await asyncio.sleep(0.3); 6*7\n',
    expectState: 'waiting_for_input',
    expectOutput: ['42\r\n', '>>> '],
    yieldTimeMs: 10_000,
    minWallMs: 250,
  },
  {
    name: 'an asyncio loop reading stdin that sleeps 1.5 s, then prints',
    cmd: py(
      'import asyncio, sys',
      'loop = asyncio.new_event_loop()',
      'loop.add_reader(0, sys.stdin.readline)',
      "print('ready', flush=True)",
      'loop.run_until_complete(asyncio.sleep(1.5))',
      "print('late', flush=True)",
      'loop.run_until_complete(asyncio.sleep(100))',
    ),
    expectState: 'waiting_for_input',
    expectOutput: ['ready\r\n', 'late\r\n'],
    yieldTimeMs: 10_000,
    minWallMs: 1400,
  },

  // Output that takes time: the answer must wait for all of it.
  {
    name: 'sleep then echo at the bash prompt',
    cmd: BASH_I,
    input: 'sleep 1; echo done\n',
    expectState: 'waiting_for_input',
    expectOutput: ['done\r\n', PROMPT],
    minWallMs: 1_000,
    yieldTimeMs: 10_000,
  },
  {
    name: 'sleep then echo as a command',
    cmd: 'sleep 1; echo done',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['done\r\n'],
    minWallMs: 1_000,
    yieldTimeMs: 10_000,
  },
  {
    name: 'output, a pause, more output',
    cmd: BASH_I,
    input: 'echo a; sleep 0.5; echo b\n',
    expectState: 'waiting_for_input',
    expectOutput: ['a\r\n', 'b\r\n', PROMPT],
    minWallMs: 500,
    yieldTimeMs: 10_000,
  },
  {
    name: 'progress bar redrawn with CR',
    cmd: BASH_I,
    input: 'for i in 1 2 3; do printf "\\r%d%%" $i; sleep 0.2; done; echo\n',
    expectState: 'waiting_for_input',
    expectOutput: ['\r1%', '\r2%', '\r3%', `\r\n${PROMPT}`],
    minWallMs: 600,
    yieldTimeMs: 10_000,
  },
  {
    name: 'subshell finishes first',
    cmd: BASH_I,
    input: '(sleep 0.3; echo sub)\n',
    expectState: 'waiting_for_input',
    expectOutput: ['sub\r\n', PROMPT],
    minWallMs: 300,
    yieldTimeMs: 10_000,
  },
  {
    name: 'sleep then read',
    cmd: 'sleep 0.2 && read y && echo y=$y',
    expectState: 'waiting_for_input',
    expectOutput: [],
    expectExactOutput: '',
    minWallMs: 200,
    yieldTimeMs: 10_000,
  },
  {
    name: 'a thread prints after a sleep while input() waits',
    cmd: py(
      'import threading, time',
      "threading.Thread(target=lambda: (time.sleep(0.5), print('late', flush=True))).start()",
      "input('> ')",
    ),
    expectState: 'waiting_for_input',
    expectOutput: ['> ', 'late\r\n'],
    minWallMs: 500,
    yieldTimeMs: 10_000,
  },
  {
    name: 'a thread parked on a lock while input() waits',
    cmd: py('import threading', 'threading.Thread(target=threading.Event().wait, daemon=True).start()', "input('> ')"),
    expectState: 'waiting_for_input',
    expectOutput: ['> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'background job leaves the prompt free',
    cmd: BASH_I,
    input: 'sleep 3 &\n',
    expectState: 'waiting_for_input',
    expectOutput: ['[1] ', PROMPT],
    yieldTimeMs: 10_000,
  },
  {
    name: 'reads a file',
    cmd: 'cat /etc/passwd',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['root:x:0:0:'],
    yieldTimeMs: 10_000,
  },
  {
    name: 'big output, then the prompt',
    cmd: BASH_I,
    input: 'seq 1 30000\n',
    expectState: 'waiting_for_input',
    expectOutput: ['\r\n1\r\n2\r\n', '\r\n15000\r\n', '\r\n29999\r\n30000\r\n', PROMPT],
    maxOutputTokens: 100_000,
    yieldTimeMs: 10_000,
  },
  {
    name: 'heredoc continuation prompt',
    cmd: BASH_I,
    input: 'cat <<EOF\n',
    expectState: 'waiting_for_input',
    expectOutput: ['cat <<EOF\r\n', '> '],
    yieldTimeMs: 10_000,
  },
  {
    name: 'heredoc completes',
    cmd: BASH_I,
    setup: ['cat <<EOF\n', 'one\n'],
    input: 'EOF\n',
    expectState: 'waiting_for_input',
    expectOutput: ['EOF\r\n', 'one\r\n', PROMPT],
    yieldTimeMs: 10_000,
  },
  {
    name: 'Ctrl-C ends a foreground sleep',
    cmd: BASH_I,
    setup: [{ chars: 'sleep 100\n', yieldTimeMs: 300, expectState: 'running' }],
    input: '\u0003',
    expectState: 'waiting_for_input',
    expectOutput: ['^C', PROMPT],
    yieldTimeMs: 10_000,
  },
  {
    name: 'exit ends the shell',
    cmd: BASH_I,
    input: 'exit\n',
    expectState: 'exited',
    expectExitCode: 0,
    expectOutput: ['exit\r\n'],
    yieldTimeMs: 10_000,
  },

  // Busy: computing, sleeping, serving. These must run to their deadline and never claim to wait for input.
  {
    name: 'server blocked in accept',
    sockets: true,
    cmd: py(
      'import socket',
      's = socket.socket()',
      "s.bind(('127.0.0.1', 0))",
      's.listen()',
      "print('listening', flush=True)",
      's.accept()',
    ),
    expectState: 'running',
    expectOutput: ['listening\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'sleep piped into cat',
    cmd: 'sleep 5 | cat',
    expectState: 'running',
    expectOutput: [],
    expectExactOutput: '',
    yieldTimeMs: 1_000,
  },
  {
    name: 'a program that never prints',
    cmd: 'sleep 2',
    expectState: 'running',
    expectOutput: [],
    expectExactOutput: '',
    yieldTimeMs: 500,
  },
  {
    name: 'a program computing',
    cmd: py('while True: pass'),
    expectState: 'running',
    expectOutput: [],
    expectExactOutput: '',
    yieldTimeMs: 500,
  },
  {
    name: 'asyncio sleeping 5 s (its loop watches only its own wake-up)',
    cmd: py('import asyncio', "print('start', flush=True)", 'asyncio.run(asyncio.sleep(5))'),
    expectState: 'running',
    expectOutput: ['start\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'select reading the terminal, a socket for exceptions',
    sockets: true,
    cmd: py(
      'import select, socket, sys',
      // A socket anyone on this machine can send to: it may wake the program without input.
      'a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
      "a.bind(('127.0.0.1', 0))",
      "print('ready', flush=True)",
      'select.select([sys.stdin], [], [a])',
    ),
    expectState: 'running',
    expectOutput: ['ready\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'poll reading the terminal, a socket for priority data',
    sockets: true,
    cmd: py(
      'import select, socket',
      // A socket anyone on this machine can send to: it may wake the program without input.
      'a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
      "a.bind(('127.0.0.1', 0))",
      'p = select.poll()',
      'p.register(0, select.POLLIN)',
      'p.register(a, select.POLLPRI)',
      "print('ready', flush=True)",
      'p.poll()',
    ),
    expectState: 'running',
    expectOutput: ['ready\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'select on the terminal and a socket',
    sockets: true,
    cmd: py(
      'import select, socket, sys',
      // A socket anyone on this machine can send to: it may wake the program without input.
      'a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
      "a.bind(('127.0.0.1', 0))",
      "print('ready', flush=True)",
      'select.select([sys.stdin, a], [], [])',
    ),
    expectState: 'running',
    expectOutput: ['ready\r\n'],
    yieldTimeMs: 2_500,
  },
  {
    name: 'select on the terminal and a socketpair it holds both ends of, no timeout',
    cmd: py(
      'import select, socket, sys',
      'a, b = socket.socketpair()',
      "print('ready', flush=True)",
      'select.select([sys.stdin, a], [], [])',
    ),
    expectState: 'waiting_for_input',
    expectOutput: ['ready\r\n'],
    yieldTimeMs: 10_000,
  },
];
