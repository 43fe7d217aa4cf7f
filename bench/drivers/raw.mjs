/**
 * The floor: node-pty used directly (pty.spawn + onData/onExit), knowing the prompt text in advance. No session
 * store, no buffering, no input-wait detection: the least any PTY-based driver can cost.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pty from 'node-pty';
import { buildEnv } from '../../dist/spawn/env.js';
import { killPty, trackPty } from '../lib/cleanup.mjs';
import { idle } from '../lib/stats.mjs';
import { sampleRss } from '../lib/proc.mjs';
import { REPLS, SHORT_COMMAND, floodCommand, lagFloodCommand, replyThenPrompt } from '../lib/workloads.mjs';

/** One raw terminal: collects output as text and resolves waits on it. */
class RawTerminal {
  constructor(file, args, { collect = true } = {}) {
    this.text = '';
    this.bytes = 0;
    this.waiter = undefined;
    // The session environment unified-exec would give (TERM=dumb, LANG=C.UTF-8, ...), so both run the same thing.
    this.pty = trackPty(
      pty.spawn(file, args, { name: 'dumb', cols: 80, rows: 24, cwd: process.cwd(), env: buildEnv() }),
    );
    this.exited = new Promise((resolve) => this.pty.onExit(resolve));
    this.pty.onData((data) => {
      this.bytes += data.length;
      if (!collect) return;
      this.text += data;
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
  }
}

const promptAtEnd = (prompt) => new RegExp(`${prompt.replace(/[$.*+?^(){}|[\]\\]/g, '\\$&')}$`);

export async function roundTrip({ repl: name, iterations, warmup }) {
  const repl = REPLS[name];
  const term = new RawTerminal(repl.file, repl.args);
  await term.waitFor(promptAtEnd(repl.prompt));
  const done = replyThenPrompt(repl);
  const samples = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    term.write(`${repl.input}\r`);
    await term.waitFor(done);
    if (i >= warmup) samples.push(performance.now() - t0);
  }
  term.kill();
  return { samples, wrong: 0 };
}

export async function shortExec({ iterations, warmup, gapMs = 0 }) {
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const t0 = performance.now();
    const term = new RawTerminal('/bin/bash', ['-c', SHORT_COMMAND]);
    await term.exited;
    if (i >= warmup) samples.push(performance.now() - t0);
    if (!term.text.includes('hi')) wrong++;
    term.kill();
  }
  return { samples, wrong };
}

export async function flood({ bytes }) {
  const rssBefore = process.memoryUsage.rss();
  const rss = sampleRss(20);
  const t0 = performance.now();
  const term = new RawTerminal('/bin/bash', ['-c', floodCommand(bytes)], { collect: false });
  await term.exited;
  const ms = performance.now() - t0;
  const peakRss = rss.stop();
  const received = term.bytes;
  term.kill();
  return { ms, bytes, received, rssBefore, peakRss };
}

export async function openMany({ count, repeat }) {
  const samples = [];
  for (let rep = 0; rep < repeat; rep++) {
    const t0 = performance.now();
    const terms = [];
    for (let i = 0; i < count; i++) terms.push(new RawTerminal(REPLS.bash.file, REPLS.bash.args));
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
    () => new RawTerminal('/bin/bash', ['-c', lagFloodCommand(bytes)], { collect: false }),
  );
  await Promise.all(terms.map((t) => t.exited));
  const ms = performance.now() - t0;
  histogram.disable();
  const received = terms.reduce((sum, t) => sum + t.bytes, 0);
  for (const t of terms) t.kill();
  return { ms, received, lag: lagOf(histogram) };
}

/** Sampling interval of the event-loop delay histogram. */
export const LAG_RESOLUTION_MS = 2;

/**
 * Event-loop lag percentiles in ms. The histogram records whole intervals between its timer's runs, so the
 * sampling interval itself is subtracted: an idle loop reads ~0.
 */
export function lagOf(histogram) {
  const lag = (ns) => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
  return { p50: lag(histogram.percentile(50)), p99: lag(histogram.percentile(99)), max: lag(histogram.max) };
}
