/**
 * The floor: node-pty used directly (pty.spawn + onData/onExit), knowing the prompt text in advance. No session
 * store, no buffering, no input-wait detection: the least any PTY-based driver can cost. With `sandbox` set, the
 * program runs under bubblewrap with the very command line unified-exec's sandbox builds (its launcher's `wrap`),
 * so the cost of bubblewrap itself is measured apart from the library's handling of a sandboxed session.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pty from '@lydell/node-pty';
import { SandboxLauncher } from '../../dist/sandbox/launcher.js';
import { SANDBOX_EXEC_PATH } from '../../dist/sandbox/sandbox-exec.js';
import { buildEnv } from '../../dist/spawn/env.js';
import { killPty, makeWorkspace, trackPty } from '../lib/cleanup.mjs';
import { fileHeavyDone, fileHeavySetup } from '../lib/file-heavy.mjs';
import { profileHome } from '../lib/login-profile.mjs';
import { LAG_RESOLUTION_MS, idle, lagOf } from '../lib/stats.mjs';
import {
  cpuMsSince,
  idleCpuMs,
  IDLE_SETTLE_MS,
  restingRss,
  sampleRss,
  settledMemory,
  settledRss,
} from '../lib/proc.mjs';
import { FIRST_SCREEN, pagerCommand, pagerFile, scrolledTo } from '../lib/pager.mjs';
import {
  LOGIN_COMMAND,
  REPLS,
  SHORT_COMMAND,
  alternateFloodCommand,
  floodCommand,
  historyCommand,
  lagFloodCommand,
  replyThenPrompt,
  sandboxPolicy,
} from '../lib/workloads.mjs';

/**
 * What to spawn for `file args`: as is, or wrapped in bubblewrap under `policy`. `release` (the launcher's
 * bookkeeping of the masked folders bubblewrap creates) runs when the terminal is killed, after any timing.
 * `seccomp: false` takes the launcher's two steps out of the command line (`unified-exec-sandbox-exec --seccomp-fd 10
 * <filter> --` before bubblewrap with its `--seccomp 10`, and `unified-exec-sandbox-exec --` inside, which enters
 * the Landlock domain), to measure what the filter and the domain add.
 */
function launch(file, args, policy, { seccomp = true } = {}) {
  // The session environment unified-exec would give (TERM=dumb, LANG=C.UTF-8, ...), so both run the same thing.
  const env = buildEnv();
  if (policy === undefined) return { file, args, cwd: process.cwd(), env, release: () => undefined };
  const cwd = policy.workspace;
  const wrapped = SandboxLauncher.shared().wrap(policy, { argv: [file, ...args], cwd, env });
  let argv = [...wrapped.argv];
  if (!seccomp) {
    argv = argv.slice(argv.indexOf('--') + 1); // bubblewrap itself, without the launcher that hands it the filter
    argv.splice(argv.indexOf('--seccomp'), 2);
    const inner = argv.indexOf(SANDBOX_EXEC_PATH);
    argv.splice(inner, argv.indexOf('--', inner) - inner + 1);
  }
  const [command, ...rest] = argv;
  return { file: command, args: rest, cwd, env: wrapped.env, release: wrapped.release };
}

/** The sandbox of this worker's runs: undefined without `sandbox`; else a fresh workspace, removed at cleanup. */
const policyFor = (sandbox) => (sandbox ? sandboxPolicy(makeWorkspace()) : undefined);

/** Output text a terminal keeps: waits only look at the end of it, and a flood must not make them scan megabytes. */
const TEXT_KEPT = 4096;

/** One raw terminal: collects output as text (the last TEXT_KEPT characters at least) and resolves waits on it. */
class RawTerminal {
  constructor({ file, args, cwd, env, release }, { collect = true } = {}) {
    this.text = '';
    this.bytes = 0;
    this.waiter = undefined;
    this.release = release;
    this.pty = trackPty(pty.spawn(file, args, { name: 'dumb', cols: 80, rows: 24, cwd, env }));
    this.exited = new Promise((resolve) => this.pty.onExit(resolve));
    this.pty.onData((data) => {
      this.bytes += data.length;
      if (!collect) return;
      this.text += data;
      if (this.text.length > 2 * TEXT_KEPT) this.text = this.text.slice(-TEXT_KEPT);
      if (this.waiter?.pattern.test(this.text)) this.waiter.resolve();
    });
  }

  /** Resolves once the collected text matches `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern, timeoutMs = 10_000) {
    if (pattern.test(this.text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`raw: timed out waiting for ${pattern} in ${JSON.stringify(this.text.slice(-200))}`));
      }, timeoutMs);
      this.waiter = {
        pattern,
        resolve: () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve();
        },
      };
    });
  }

  write(data) {
    this.text = '';
    this.pty.write(data);
  }

  kill() {
    killPty(this.pty);
    this.release();
  }
}

const promptAtEnd = (prompt) => new RegExp(`${prompt.replace(/[$.*+?^(){}|[\]\\]/g, '\\$&')}$`);

export async function roundTrip({ repl: name, iterations, warmup, sandbox, seccomp }) {
  const repl = REPLS[name];
  const term = new RawTerminal(launch(repl.file, repl.args, policyFor(sandbox), { seccomp }));
  await term.waitFor(promptAtEnd(repl.prompt));
  const samples = await timeRoundTrips(term, repl, { iterations, warmup });
  term.kill();
  return { samples, wrong: 0 };
}

/** Write `repl.input`, wait for reply + prompt: `iterations` times after `warmup`; the times in ms. */
async function timeRoundTrips(term, repl, { iterations, warmup }) {
  const done = replyThenPrompt(repl);
  const samples = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    term.write(`${repl.input}\r`);
    await term.waitFor(done);
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  return samples;
}

export async function shortExec({ iterations, warmup, gapMs = 0, sandbox, seccomp }) {
  const policy = policyFor(sandbox);
  const args = ['-c', SHORT_COMMAND];
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    // Under bwrap the command line is built before the clock starts (bubblewrap's own cost is the point); without,
    // the environment is built inside the timed spawn as it always was.
    const wrapped = policy && launch('/bin/bash', args, policy, { seccomp });
    const t0 = performance.now();
    const term = new RawTerminal(wrapped ?? launch('/bin/bash', args));
    await term.exited;
    if (i >= warmup) samples.push(performance.now() - t0);
    if (!term.text.includes('hi')) wrong++;
    term.kill();
  }
  return { samples, wrong };
}

/** The floor of figure 18b: `bash -c` the file-heavy command in its fresh workspace, spawn→exit. */
export async function fileHeavy({ files }) {
  const { workspace, command } = fileHeavySetup(files);
  const t0 = performance.now();
  const term = new RawTerminal({ ...launch('/bin/bash', ['-c', command]), cwd: workspace });
  const { exitCode } = await term.exited;
  const samples = [performance.now() - t0];
  term.kill();
  if (exitCode !== 0) throw new Error(`file-heavy exited ${exitCode}: ${term.text.slice(-500)}`);
  return { samples, wrong: fileHeavyDone(workspace, files) ? 0 : 1 };
}

/** The floor of the login-shell figure: `bash -c true` (no profile read) spawn→exit, with `profile`'s HOME. */
export async function loginExec({ profile, iterations, warmup, gapMs = 0 }) {
  const { home } = profileHome(profile);
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const t0 = performance.now();
    const spec = launch('/bin/bash', ['-c', LOGIN_COMMAND]);
    const term = new RawTerminal({ ...spec, env: { ...spec.env, HOME: home } });
    const { exitCode } = await term.exited;
    if (i >= warmup) samples.push(performance.now() - t0);
    if (exitCode !== 0) wrong++;
    term.kill();
  }
  return { samples, wrong };
}

/** `alternate`: the program switches to the alternate screen first (figure 14b). */
export async function flood({ bytes, alternate = false }) {
  const rssBefore = process.memoryUsage.rss();
  const rss = sampleRss(20);
  const command = alternate ? alternateFloodCommand(bytes) : floodCommand(bytes);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const term = new RawTerminal(launch('/bin/bash', ['-c', command]), { collect: false });
  await term.exited;
  const ms = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu);
  const peakRss = rss.stop();
  const received = term.bytes;
  term.kill();
  return { ms, cpuMs, bytes, received, rssBefore, peakRss };
}

export async function openMany({ count, repeat }) {
  const samples = [];
  for (let rep = 0; rep < repeat; rep++) {
    const t0 = performance.now();
    const terms = [];
    for (let i = 0; i < count; i++) terms.push(new RawTerminal(launch(REPLS.bash.file, REPLS.bash.args)));
    await Promise.all(terms.map((t) => t.waitFor(promptAtEnd(REPLS.bash.prompt))));
    samples.push(performance.now() - t0);
    for (const t of terms) t.kill();
    await Promise.all(terms.map((t) => t.exited));
  }
  return { samples, mode: 'all spawned at once (pty.spawn is synchronous), then wait for every prompt' };
}

export async function lagFlood({ sessions, bytes }) {
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const t0 = performance.now();
  const terms = Array.from(
    { length: sessions },
    () => new RawTerminal(launch('/bin/bash', ['-c', lagFloodCommand(bytes)]), { collect: false }),
  );
  await Promise.all(terms.map((t) => t.exited));
  const ms = performance.now() - t0;
  histogram.disable();
  const received = terms.reduce((sum, t) => sum + t.bytes, 0);
  for (const t of terms) t.kill();
  return { ms, received, lag: lagOf(histogram) };
}

/** The prompt back after a `yes` flood: the last `y` line, then the prompt. */
const FLOOD_DONE = /y\r\n\$ $/;

/**
 * Many idle shells (figure 13): a round trip on one shell alone; then `count` shells spawned at once (timed until
 * every prompt), this worker's RSS and CPU while they sit idle, a round trip on one of them, and the event-loop lag
 * while `floods` of the others print `floodBytes` each. Every shell is killed by its process group at the end.
 */
export async function scale({ count, floods, floodBytes, iterations, warmup }) {
  const bash = REPLS.bash;
  const prompt = promptAtEnd(bash.prompt);
  const alone = new RawTerminal(launch(bash.file, bash.args));
  await alone.waitFor(prompt);
  const aloneSamples = await timeRoundTrips(alone, bash, { iterations, warmup });
  alone.kill();
  await alone.exited;

  // Both RSS figures at rest: the round trips before and the opening burst grew the young generation.
  const rssBefore = await restingRss();
  const t0 = performance.now();
  const terms = [];
  for (let i = 0; i < count; i++) terms.push(new RawTerminal(launch(bash.file, bash.args)));
  await Promise.all(terms.map((t) => t.waitFor(prompt, 120_000)));
  const openMs = performance.now() - t0;
  const idleCpu = await idleCpuMs(1000);
  const rssIdle = settledRss();
  const rssRested = await restingRss(IDLE_SETTLE_MS - 1000);
  const samples = await timeRoundTrips(terms[0], bash, { iterations, warmup });

  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const t1 = performance.now();
  await Promise.all(
    terms.slice(1, 1 + floods).map((t) => {
      t.write(`${lagFloodCommand(floodBytes)}\r`);
      return t.waitFor(FLOOD_DONE, 120_000);
    }),
  );
  const floodMs = performance.now() - t1;
  histogram.disable();

  const t2 = performance.now();
  for (const t of terms) t.kill();
  await Promise.all(terms.map((t) => t.exited));
  const closeMs = performance.now() - t2;
  return {
    count,
    openMs,
    aloneSamples,
    samples,
    lag: lagOf(histogram),
    floods,
    floodMs,
    rssBefore,
    rssIdle,
    rssRested,
    idleCpuMs: idleCpu,
    closeMs,
    mode: 'all spawned at once (pty.spawn is synchronous), then wait for every prompt',
  };
}

/** The prompt back after historyCommand: the last `a`, the line break, the prompt. */
const HISTORY_DONE = /a\r\n\$ $/;

/**
 * The memory of screens (figure 14c), the floor: `count` shells spawned at once, each prints `historyBytes` and sits
 * at its prompt (RSS after GC); then each opens less on a file and sits in its first screen (RSS again). Raw node-pty
 * keeps no screen: only the few KiB of text its waits look at.
 */
export async function screenMemory({ count, historyBytes }) {
  const file = pagerFile();
  const bash = REPLS.bash;
  const before = settledMemory();
  const terms = Array.from({ length: count }, () => new RawTerminal(launch(bash.file, bash.args)));
  await Promise.all(terms.map((t) => t.waitFor(promptAtEnd(bash.prompt), 60_000)));
  await Promise.all(
    terms.map((t) => {
      t.write(`${historyCommand(historyBytes)}\r`);
      return t.waitFor(HISTORY_DONE, 60_000);
    }),
  );
  const atPrompt = settledMemory();
  await Promise.all(
    terms.map((t) => {
      t.write(`${pagerCommand(file)}\r`);
      return t.waitFor(FIRST_SCREEN, 60_000);
    }),
  );
  const inPager = settledMemory();
  for (const t of terms) t.kill();
  await Promise.all(terms.map((t) => t.exited));
  return { count, historyBytes, memory: { before, atPrompt, inPager } };
}

/**
 * A key in a full-screen program (figure 14d), the floor: less on a long file, `j` written, until the redraw (the
 * new last line and the prompt) has come; `iterations` times after `warmup`.
 */
export async function pagerKeys({ iterations, warmup }) {
  const term = new RawTerminal(launch('/bin/bash', ['-c', pagerCommand(pagerFile(), { exec: true })]));
  await term.waitFor(FIRST_SCREEN);
  const samples = [];
  for (let i = 1; i <= warmup + iterations; i++) {
    const t0 = performance.now();
    term.write('j');
    await term.waitFor(scrolledTo(i));
    if (i > warmup) samples.push(performance.now() - t0);
  }
  term.kill();
  return { samples, wrong: 0 };
}
