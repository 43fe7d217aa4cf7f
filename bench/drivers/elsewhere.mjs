/**
 * unified-exec running its sessions elsewhere: through an exec-server on loopback (ours, or the real Codex one) or
 * in a container (`docker://` exec on Podman), and, for the same measurement beside them, on this machine. `where`
 * comes from the worker; what it takes to set each place up is in lib/elsewhere.mjs.
 */
import { readFileSync } from 'node:fs';
import { UnifiedExecManager } from '../../dist/lib/index.js';
import { shutdownManager, trackManager } from '../lib/cleanup.mjs';
import { executorsFor, startExecServer } from '../lib/elsewhere.mjs';
import { descendants, statusBytes } from '../lib/proc.mjs';
import { idle } from '../lib/stats.mjs';
import { BASH, REPLS, replyThenPrompt } from '../lib/workloads.mjs';
import { timeFlood, timeShortExecs } from './unified.mjs';

/** A manager whose only executor is `where` (so it is the default); `{ skipped }` when it cannot run here. */
async function managerAt(where, binaryOutput) {
  const place = await executorsFor(where, { binaryOutput });
  if (place.skipped) return place;
  const manager = trackManager(
    new UnifiedExecManager({
      executors: place.executors,
      sandbox: 'danger-full-access',
      defaultShell: '/bin/bash',
    }),
  );
  return { ...place, manager };
}

/**
 * A write and its answer, timed twice: `answerMs` is the call's wall time (input-wait where the place reports
 * it, else the 250 ms yield), `markerMs` the moment the reply line and the prompt came through the call's output
 * stream (`onOutput`): a round trip that does not depend on input-wait, comparable across places.
 */
async function timedWrite(manager, sessionId, chars, done, yieldTimeMs) {
  let text = '';
  let markedAt;
  const onOutput = (chunk) => {
    text += chunk;
    if (markedAt === undefined && done.test(text)) markedAt = performance.now();
  };
  const t0 = performance.now();
  const res = await manager.writeStdin({ sessionId, chars, yieldTimeMs }, { onOutput });
  const t1 = performance.now();
  // Output that came in before the call took the session is in the reply only.
  if (markedAt === undefined && done.test(res.output)) markedAt = t1;
  return { res, answerMs: t1 - t0, markerMs: markedAt === undefined ? undefined : markedAt - t0 };
}

export async function roundTrip({ where, iterations, warmup }) {
  const place = await managerAt(where);
  if (place.skipped) return place;
  const { manager, inputWait } = place;
  const repl = REPLS.bash;
  const done = replyThenPrompt(repl);
  // Without input-wait a live call answers at its yield: the shortest one for typing, the reply being there long
  // before; 1 s for the shell to start, then a poll if it was not enough.
  const yields = inputWait ? { exec: 10_000, write: 10_000 } : { exec: 1_000, write: 250 };
  const opened = await manager.execCommand({ command: repl.cmd, ...BASH, tty: true, yieldTimeMs: yields.exec });
  let shown = opened.output;
  if (!shown.endsWith(repl.prompt)) {
    shown += (await manager.writeStdin({ sessionId: opened.sessionId, chars: '', yieldTimeMs: 5_000 })).output;
  }
  if (!shown.endsWith(repl.prompt)) throw new Error(`no prompt at ${where}: ${JSON.stringify(shown)}`);
  const samples = [];
  const answers = [];
  let wrong = 0;
  let notWaiting = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const { res, answerMs, markerMs } = await timedWrite(
      manager,
      opened.sessionId,
      `${repl.input}\r`,
      done,
      yields.write,
    );
    if (markerMs === undefined) wrong++;
    else if (i >= warmup) samples.push(markerMs);
    if (i >= warmup) answers.push(answerMs);
    if (inputWait && res.state !== 'waiting_for_input') notWaiting++;
  }
  await shutdownManager(manager);
  return { samples, answers, wrong, notWaiting, inputWait };
}

export async function shortExec({ where, iterations, warmup, tty, gapMs = 0 }) {
  const place = await managerAt(where);
  if (place.skipped) return place;
  return timeShortExecs(place.manager, { iterations, warmup, tty, gapMs });
}

export async function flood({ where, bytes, binaryOutput }) {
  const place = await managerAt(where, binaryOutput);
  if (place.skipped) return place;
  const { manager, serverPid } = place;
  // The exec-server holds the output on its side too: its peak RSS, read before it is stopped.
  return timeFlood(manager, bytes, () =>
    serverPid === undefined ? {} : { serverPeakRss: statusBytes(serverPid, 'VmHWM') },
  );
}

/**
 * `count` sessions of `sleep 60` opened at once (Promise.all), spread evenly over `servers` of our exec-servers
 * (0: on this machine); the time until every call has answered with a session id. A live `sleep` never waits for
 * input, so each call answers at its yield (250 ms, the shortest). Then every session is closed and the servers
 * are checked for processes left behind.
 */
export async function openSpread({ servers, count, tty, yieldTimeMs = 250 }) {
  const started = await Promise.all(Array.from({ length: servers }, () => startExecServer('ours')));
  const executors =
    servers === 0 ? { local: 'local' } : Object.fromEntries(started.map((s, i) => [`box${i}`, s.executorUrl]));
  const names = Object.keys(executors);
  const manager = trackManager(
    new UnifiedExecManager({ executors, sandbox: 'danger-full-access', defaultShell: '/bin/bash', maxSessions: count }),
  );
  const open = (i) =>
    manager.execCommand({ command: 'sleep 60', ...BASH, tty, yieldTimeMs, executor: names[i % names.length] });
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: count }, (_, i) => open(i)));
  const ms = performance.now() - t0;
  const ids = new Set(results.map((r) => r.sessionId).filter((id) => id !== undefined));
  const t1 = performance.now();
  await Promise.all([...ids].map((id) => manager.closeSession(id)));
  const closeMs = performance.now() - t1;
  const listed = manager.listSessions().length;
  // What the servers (or, locally, this worker) still run once every session is closed: nothing but a watchdog.
  const roots = servers === 0 ? [process.pid] : started.map((s) => s.pid);
  const left = await settledCount(() => roots.flatMap((pid) => descendants(pid).filter((p) => !isWatchdog(p))));
  await shutdownManager(manager);
  return { samples: [ms], opened: ids.size, closeMs, listed, left, servers };
}

/** How many of `list()` are still there after giving them up to 2 s to be reaped. */
async function settledCount(list) {
  let found = list();
  for (let attempt = 0; attempt < 40 && found.length > 0; attempt++) {
    await idle(50);
    found = list();
  }
  return found.length;
}

/** The library's watchdog (native/watchdog.mjs) lives as long as its manager or server: not a leftover. */
function isWatchdog(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('watchdog.mjs');
  } catch {
    return false;
  }
}
