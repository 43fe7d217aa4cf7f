/**
 * tmux driven the way OpenHands and Terminal-Bench drive shells: `send-keys` to type, `capture-pane` polled to read
 * the screen back, and for blocking commands Terminal-Bench's `; tmux wait -S done` + `tmux wait done`. Polling
 * is back-to-back (no sleep between polls), the best case for this approach. The server runs on a private socket
 * (`-L ue-bench-<pid>[-n]`) with no config file and is killed through that socket.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildEnv } from '../../dist/spawn/env.js';
import { killTmux, trackTmux } from '../lib/cleanup.mjs';
import { idle } from '../lib/stats.mjs';
import { statusBytes } from '../lib/proc.mjs';
import { REPLS, SHORT_COMMAND, floodCommand } from '../lib/workloads.mjs';

const execFileP = promisify(execFile);
let servers = 0;

class TmuxServer {
  constructor() {
    // A fresh socket per server: a new server on a socket whose old server is still shutting down fails.
    this.socket = trackTmux(`ue-bench-${process.pid}${servers++ > 0 ? `-${servers}` : ''}`);
    this.polls = 0;
  }

  async run(...args) {
    const { stdout } = await execFileP('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], {
      env: buildEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  }

  /** Starts the server with one window running `cmd` (a shell command line). */
  async start(cmd) {
    await this.run('new-session', '-d', '-s', 'main', '-x', '80', '-y', '24', cmd);
    await this.run('set-option', '-g', 'history-limit', '5000');
  }

  capture(target = 'main') {
    this.polls++;
    return this.run('capture-pane', '-p', '-J', '-S', '-', '-t', target);
  }

  /** Polls the pane's whole history until `done(lines)` holds. */
  async pollUntil(done, timeoutMs = 30_000, target = 'main') {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const lines = (await this.capture(target)).split('\n').map((l) => l.trimEnd());
      while (lines.length > 0 && lines.at(-1) === '') lines.pop();
      if (done(lines)) return;
      if (performance.now() > deadline)
        throw new Error(`tmux: timed out; screen ends ${JSON.stringify(lines.slice(-3))}`);
    }
  }

  async serverPeakRss() {
    const pid = Number((await this.run('display-message', '-p', '#{pid}')).trim());
    return statusBytes(pid, 'VmHWM');
  }

  kill() {
    killTmux(this.socket);
  }
}

const count = (lines, text) => lines.filter((l) => l === text).length;

export async function roundTrip({ repl: name, iterations, warmup }) {
  const repl = REPLS[name];
  const tmux = new TmuxServer();
  await tmux.start(repl.cmd);
  const prompt = repl.prompt.trimEnd();
  await tmux.pollUntil((lines) => lines.at(-1) === prompt);
  const samples = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    await tmux.run('send-keys', '-t', 'main', repl.input, 'Enter');
    // The reply line has appeared i+1 times and the prompt is back on the last line.
    await tmux.pollUntil((lines) => lines.at(-1) === prompt && count(lines, repl.reply) === i + 1);
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  const polls = tmux.polls;
  tmux.kill();
  return { samples, wrong: 0, pollsPerRoundTrip: polls / (warmup + iterations) };
}

/** Terminal-Bench's blocking command: type `cmd; tmux wait -S done`, then `tmux wait done`. */
async function runBlocking(tmux, cmd) {
  await tmux.run('send-keys', '-t', 'main', `${cmd}; tmux wait -S done`, 'Enter');
  await tmux.run('wait-for', 'done');
}

export async function shortExec({ iterations, warmup, gapMs = 0 }) {
  const tmux = new TmuxServer();
  await tmux.start(REPLS.bash.cmd);
  await tmux.pollUntil((lines) => lines.at(-1) === '$');
  const samples = [];
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const t0 = performance.now();
    await runBlocking(tmux, SHORT_COMMAND);
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  tmux.kill();
  return { samples, wrong: 0, mode: 'send-keys "echo hi; tmux wait -S done" + tmux wait done, in a live shell' };
}

export async function flood({ bytes }) {
  const tmux = new TmuxServer();
  await tmux.start(REPLS.bash.cmd);
  await tmux.pollUntil((lines) => lines.at(-1) === '$');
  const t0 = performance.now();
  await runBlocking(tmux, floodCommand(bytes));
  const ms = performance.now() - t0;
  // The output lives in the tmux server, not in this process: its peak RSS is the comparable number.
  const peakRss = await tmux.serverPeakRss();
  tmux.kill();
  return { ms, bytes, received: null, peakRss, rssOf: 'tmux server' };
}

export async function openMany({ count: sessions, repeat }) {
  const samples = [];
  for (let rep = 0; rep < repeat; rep++) {
    const tmux = new TmuxServer();
    const t0 = performance.now();
    await tmux.start(REPLS.bash.cmd);
    const more = [];
    for (let i = 1; i < sessions; i++)
      more.push(...(i > 1 ? [';'] : []), 'new-window', '-d', '-t', 'main', REPLS.bash.cmd);
    if (more.length > 0) await tmux.run(...more);
    // Every pane's cursor sits right after '$ ' once its prompt is drawn.
    const deadline = performance.now() + 30_000;
    for (;;) {
      if (performance.now() > deadline) throw new Error('tmux: not every pane showed its prompt within 30 s');
      tmux.polls++;
      const cursors = (await tmux.run('list-panes', '-a', '-F', '#{cursor_x} #{cursor_y}')).trim().split('\n');
      if (cursors.length === sessions && cursors.every((c) => c.startsWith('2 '))) break;
    }
    samples.push(performance.now() - t0);
    tmux.kill();
  }
  return {
    samples,
    mode: 'new-session + 63 new-window in one tmux call, then list-panes polled until every prompt is drawn',
  };
}
