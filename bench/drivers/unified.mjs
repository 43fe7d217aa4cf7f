/**
 * unified-exec through its public library API (dist/), as an agent's tool handler calls it. One module serves both
 * return rules and the sandboxed manager; `returnOn`, `sandbox` and `sandboxBackend` come from the worker.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { LocalExecutor, UnifiedExecManager } from '../../dist/lib/index.js';
import { ProbeBudget } from '../../dist/input-wait/probe-budget.js';
import { makeWorkspace, shutdownManager, trackManager } from '../lib/cleanup.mjs';
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
import { fileHeavyDone, fileHeavySetup } from '../lib/file-heavy.mjs';
import { profileHome } from '../lib/login-profile.mjs';
import { pagerCommand, pagerFile, scrolledReply } from '../lib/pager.mjs';
import {
  ADVERSARIAL_INPUTS,
  BASH,
  LOGIN_COMMAND,
  REPLS,
  SHORT_COMMAND,
  alternateFloodCommand,
  floodCommand,
  historyCommand,
  lagFloodCommand,
} from '../lib/workloads.mjs';
import { OutputTap, capYields, loadScenarioSuite, measureScenario } from '../lib/scenarios.mjs';

/** Yields per rule: input-wait may wait long (it answers at the prompt); deadline is Codex's rule with its defaults. */
function yieldsFor(returnOn) {
  return returnOn === 'deadline' ? { exec: 500, write: 250 } : { exec: 10_000, write: 10_000 };
}

/** The manager's `screens` setting when the driver gives one (figure 14's `screens: false`); else its default, on. */
const screensOption = (screens) => (screens === undefined ? {} : { screens });

function newManager(returnOn, options = {}) {
  return trackManager(new UnifiedExecManager({ returnOn, defaultShell: '/bin/bash', ...options }));
}

/**
 * Manager options for a sandbox mode: none for the default (danger-full-access); else that mode in a fresh workspace
 * under /var/tmp, removed at cleanup. Approvals stay at their sandbox default (on-request), as under `mcp`.
 */
const sandboxOptions = (sandbox, sandboxBackend) =>
  sandbox ? { sandbox, cwd: makeWorkspace(), ...(sandboxBackend ? { sandboxBackend } : {}) } : {};

/**
 * Runs `cmd` to its exit: exec_command with the longest yield, then empty polls if it is still going (a slow
 * flood can outlast 30 s). Returns every byte count the calls reported and the exit code.
 */
export async function runToExit(manager, cmd) {
  let res = await manager.execCommand({ command: cmd, ...BASH, tty: true, yieldTimeMs: 30_000 });
  let bytes = res.originalTokenCount * 4;
  while (res.exitCode === undefined) {
    res = await manager.writeStdin({ sessionId: res.sessionId, chars: '', yieldTimeMs: 30_000 });
    bytes += res.originalTokenCount * 4;
  }
  return { bytes, exitCode: res.exitCode };
}

/** A line of output that is exactly `reply` (not the echoed input that contains it). */
const replyLine = (reply) => new RegExp(`(^|\\n)${reply}\\r?\\n`);

export async function roundTrip({ repl: name, iterations, warmup, returnOn, sandbox, sandboxBackend }) {
  const repl = REPLS[name];
  const yields = yieldsFor(returnOn);
  const manager = newManager(returnOn, sandboxOptions(sandbox, sandboxBackend));
  const opened = await manager.execCommand({ command: repl.cmd, ...BASH, tty: true, yieldTimeMs: yields.exec });
  const result = await timeRoundTrips(manager, opened.sessionId, repl, { iterations, warmup, yieldMs: yields.write });
  await shutdownManager(manager);
  return result;
}

/** `writeStdin` of `repl.input`, `iterations` times after `warmup`: the times, wrong replies, answers not waiting. */
async function timeRoundTrips(manager, sessionId, repl, { iterations, warmup, yieldMs }) {
  const samples = [];
  let wrong = 0;
  let notWaiting = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    const res = await manager.writeStdin({ sessionId, chars: `${repl.input}\r`, yieldTimeMs: yieldMs });
    if (i >= warmup) samples.push(performance.now() - t0);
    if (!replyLine(repl.reply).test(res.output)) wrong++;
    if (res.state !== 'waiting_for_input') notWaiting++;
  }
  return { samples, wrong, notWaiting };
}

export async function shortExec({ iterations, warmup, returnOn, tty, gapMs = 0, sandbox, sandboxBackend }) {
  return timeShortExecs(newManager(returnOn, sandboxOptions(sandbox, sandboxBackend)), {
    iterations,
    warmup,
    tty,
    gapMs,
  });
}

/** Spawn to exit of SHORT_COMMAND on `manager`, `iterations` times after `warmup`; shuts the manager down after. */
export async function timeShortExecs(manager, { iterations, warmup, tty, gapMs = 0 }) {
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const t0 = performance.now();
    const res = await manager.execCommand({ command: SHORT_COMMAND, ...BASH, tty, yieldTimeMs: 10_000 });
    if (i >= warmup) samples.push(performance.now() - t0);
    if (res.exitCode !== 0 || !res.output.includes('hi')) wrong++;
  }
  await shutdownManager(manager);
  return { samples, wrong };
}

/**
 * Figure 18b: the file-heavy command (bench/lib/file-heavy.mjs) spawn→exit, pipes, in a fresh workspace of its own
 * (the manager's cwd, and with `sandbox` its writable root).
 */
export async function fileHeavy({ files, returnOn, sandbox, sandboxBackend }) {
  const { workspace, command } = fileHeavySetup(files);
  const manager = newManager(returnOn, {
    cwd: workspace,
    ...(sandbox ? { sandbox, ...(sandboxBackend ? { sandboxBackend } : {}) } : {}),
  });
  const t0 = performance.now();
  let res = await manager.execCommand({ command: command, ...BASH, tty: false, yieldTimeMs: 30_000 });
  while (res.exitCode === undefined) {
    res = await manager.writeStdin({ sessionId: res.sessionId, chars: '', yieldTimeMs: 30_000 });
  }
  const samples = [performance.now() - t0];
  await shutdownManager(manager);
  if (res.exitCode !== 0) throw new Error(`file-heavy exited ${res.exitCode}: ${res.output.slice(-500)}`);
  return { samples, wrong: fileHeavyDone(workspace, files) ? 0 : 1 };
}

/**
 * `true` spawn→exit with bash as the shell and pipes (tty: false), HOME at `profile`'s home, one call after the other
 * `gapMs` apart. `mode`: 'login' runs a real login shell every call (`shellSnapshot: false`); 'snapshot' is the
 * default (login through a snapshot, taken from the manager's start as a server takes it, `warmUp()`; the first call,
 * sent FIRST_CALL_AFTER_MS after the start, is timed on its own, outside the samples); 'plain' is `login: false`.
 * After the timing, the fixture profile's probe says what of the profile a command saw.
 */
/** When a snapshot row's first call is sent after its manager started: an agent's first command comes about then. */
const FIRST_CALL_AFTER_MS = 1_000;

export async function loginExec({ profile, mode, iterations, warmup, gapMs = 0, returnOn }) {
  const { home, probe } = profileHome(profile);
  const manager = newManager(returnOn, { env: { set: { HOME: home } }, shellSnapshot: mode !== 'login' });
  const run = (cmd) =>
    manager.execCommand({ command: cmd, shell: '/bin/bash', login: mode !== 'plain', tty: false, yieldTimeMs: 10_000 });
  let wrong = 0;
  let fellBack = 0;
  const timed = async () => {
    const t0 = performance.now();
    const res = await run(LOGIN_COMMAND);
    const ms = performance.now() - t0;
    if (res.exitCode !== 0) wrong++;
    // The snapshot could not be taken or used: the call ran a real login shell instead, and says so.
    if (res.warnings.some((w) => w.includes('snapshot'))) fellBack++;
    return ms;
  };
  if (mode === 'snapshot') {
    void manager.warmUp();
    await idle(FIRST_CALL_AFTER_MS);
  }
  const firstCallMs = mode === 'snapshot' ? await timed() : undefined;
  const samples = [];
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const ms = await timed();
    if (i >= warmup) samples.push(ms);
  }
  const profileSeen = probe === undefined ? undefined : (await run(probe)).output.trim();
  await shutdownManager(manager);
  return { samples, wrong, fellBack, firstCallMs, profileSeen };
}

/**
 * The first login call of a server that has just started (figure 20): the manager starts taking its snapshot
 * (`warmUp()`, as the servers do) and the call is sent at once, with `yieldMs`; the sample is the time to its answer.
 * Its output is read to the exit: `wrong` when the command did not run or its profile's export was missing.
 */
export async function firstLoginCall({ profile, yieldMs, returnOn }) {
  const { home } = profileHome(profile);
  const manager = newManager(returnOn, { env: { set: { HOME: home } } });
  void manager.warmUp();
  const t0 = performance.now();
  const command = 'echo "first call: ${UE_BENCH_PROFILE-no profile}"';
  let res = await manager.execCommand({ command, shell: '/bin/bash', login: true, tty: false, yieldTimeMs: yieldMs });
  const ms = performance.now() - t0;
  let output = res.output;
  while (res.exitCode === undefined) {
    res = await manager.writeStdin({ sessionId: res.sessionId, chars: '', yieldTimeMs: 10_000 });
    output += res.output;
  }
  await shutdownManager(manager);
  return { samples: [ms], wrong: res.exitCode === 0 && output.includes('first call: slow') ? 0 : 1 };
}

/** `alternate`: the program switches to the alternate screen first (figure 14b). */
export async function flood({ bytes, returnOn, screens, alternate = false }) {
  const command = alternate ? alternateFloodCommand(bytes) : floodCommand(bytes);
  return timeFlood(newManager(returnOn, screensOption(screens)), bytes, undefined, command);
}

/**
 * Floods `bytes` through `manager` to the exit (`command`: the flood command that prints them): the time, this
 * process's CPU time, the bytes the replies counted and this process's RSS. `beforeShutdown` adds what must be read
 * while the manager still runs (a server's peak RSS). Shuts the manager down.
 */
export async function timeFlood(manager, bytes, beforeShutdown = () => ({}), command = floodCommand(bytes)) {
  const rssBefore = process.memoryUsage.rss();
  const rss = sampleRss(20);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const res = await runToExit(manager, command);
  const ms = performance.now() - t0;
  const cpuMs = cpuMsSince(cpu);
  const peakRss = rss.stop();
  const extra = beforeShutdown();
  await shutdownManager(manager);
  // originalTokenCount is ceil(bytes/4) of everything printed, dropped bytes included: exact for a multiple of 4.
  return { ms, cpuMs, bytes, received: res.bytes, exitCode: res.exitCode, rssBefore, peakRss, ...extra };
}

export async function openMany({ count, repeat, returnOn, sequential }) {
  const yields = yieldsFor(returnOn);
  const samples = [];
  const teardown = [];
  let notWaiting = 0;
  for (let rep = 0; rep < repeat; rep++) {
    const manager = newManager(returnOn, { maxSessions: count });
    const open = () => manager.execCommand({ command: REPLS.bash.cmd, ...BASH, tty: true, yieldTimeMs: yields.exec });
    const t0 = performance.now();
    let results;
    if (sequential) {
      results = [];
      for (let i = 0; i < count; i++) results.push(await open());
    } else {
      results = await Promise.all(Array.from({ length: count }, open));
    }
    samples.push(performance.now() - t0);
    notWaiting += results.filter((r) => r.state !== 'waiting_for_input').length;
    const t1 = performance.now();
    await shutdownManager(manager);
    teardown.push(performance.now() - t1);
  }
  const mode = sequential
    ? 'sequential: one execCommand after another'
    : `concurrent: ${count} execCommand calls at once (Promise.all)`;
  return { samples, teardown, notWaiting, mode };
}

/**
 * Many idle sessions (figure 13), as raw's `scale`: a round trip on one session alone (then closed); `count`
 * execCommand calls at once (`maxSessions: count`, yield 30 s so each answers at its prompt); RSS and CPU while they
 * sit idle; a round trip on one of them; the event-loop lag while `floods` of the others print `floodBytes` each
 * (typed into the shell, polled until back at the prompt). Shuts the manager down (timed) at the end.
 */
export async function scale({ count, floods, floodBytes, iterations, warmup, returnOn }) {
  const yields = yieldsFor(returnOn);
  const manager = newManager(returnOn, { maxSessions: count });
  const open = () => manager.execCommand({ command: REPLS.bash.cmd, ...BASH, tty: true, yieldTimeMs: 30_000 });
  const alone = await open();
  const aloneRun = await timeRoundTrips(manager, alone.sessionId, REPLS.bash, {
    iterations,
    warmup,
    yieldMs: yields.write,
  });
  await manager.closeSession(alone.sessionId);

  // Input-wait probes of /proc the sessions took from the process's shared budget, and how many waited for it.
  const probes = ProbeBudget.shared().counts;
  const probesSince = (before) => ({ granted: probes.granted - before.granted, waited: probes.waited - before.waited });
  // Both RSS figures at rest: the round trips before and the opening burst grew the young generation.
  const rssBefore = await restingRss();
  const beforeOpen = { ...probes };
  const t0 = performance.now();
  const opened = await Promise.all(Array.from({ length: count }, open));
  const openMs = performance.now() - t0;
  const openProbes = probesSince(beforeOpen);
  const idleCpu = await idleCpuMs(1000);
  const rssIdle = settledRss();
  const rssRested = await restingRss(IDLE_SETTLE_MS - 1000);
  const loaded = await timeRoundTrips(manager, opened[0].sessionId, REPLS.bash, {
    iterations,
    warmup,
    yieldMs: yields.write,
  });

  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  const beforeFlood = { ...probes };
  histogram.enable();
  const t1 = performance.now();
  await Promise.all(
    opened.slice(1, 1 + floods).map((s) => typeUntilPrompt(manager, s.sessionId, lagFloodCommand(floodBytes))),
  );
  const floodMs = performance.now() - t1;
  histogram.disable();
  const floodProbes = probesSince(beforeFlood);

  const t2 = performance.now();
  await shutdownManager(manager);
  const closeMs = performance.now() - t2;
  return {
    count,
    openMs,
    notWaiting: opened.filter((r) => r.state !== 'waiting_for_input').length + loaded.notWaiting,
    wrong: loaded.wrong + aloneRun.wrong,
    aloneSamples: aloneRun.samples,
    samples: loaded.samples,
    lag: lagOf(histogram),
    floods,
    floodMs,
    rssBefore,
    rssIdle,
    rssRested,
    idleCpuMs: idleCpu,
    closeMs,
    probes: { open: openProbes, flood: floodProbes },
    mode: `concurrent: ${count} execCommand calls at once (Promise.all, maxSessions ${count})`,
  };
}

/**
 * Types `command` into a shell session and polls until it waits for input again (the shell at its prompt, or the
 * program it started); returns the last reply.
 */
async function typeUntilPrompt(manager, sessionId, command) {
  let res = await manager.writeStdin({ sessionId, chars: `${command}\r`, yieldTimeMs: 30_000 });
  while (res.state !== 'waiting_for_input' && res.exitCode === undefined) {
    res = await manager.writeStdin({ sessionId, chars: '', yieldTimeMs: 30_000 });
  }
  return res;
}

/**
 * The memory of screens (figure 14c), as raw's `screenMemory`: `count` shells opened at once (`maxSessions: count`),
 * each prints `historyBytes` (typed, polled back to its prompt) and sits idle; RSS after GC; then each opens less on
 * a file, whose reply comes once less waits for a key (with screens on, the session's screen is live from the switch
 * to the alternate screen on: an emulator parsing its output); RSS again. `shown`: replies that carried a screen.
 */
export async function screenMemory({ count, historyBytes, returnOn, screens }) {
  const file = pagerFile();
  const manager = newManager(returnOn, { maxSessions: count, ...screensOption(screens) });
  const before = settledMemory();
  const opened = await Promise.all(
    Array.from({ length: count }, () =>
      manager.execCommand({ command: REPLS.bash.cmd, ...BASH, tty: true, yieldTimeMs: 30_000 }),
    ),
  );
  const ids = opened.map((r) => r.sessionId);
  await Promise.all(ids.map((id) => typeUntilPrompt(manager, id, historyCommand(historyBytes))));
  const atPrompt = settledMemory();
  const paged = await Promise.all(ids.map((id) => typeUntilPrompt(manager, id, pagerCommand(file))));
  const inPager = settledMemory();
  await shutdownManager(manager);
  return {
    count,
    historyBytes,
    memory: { before, atPrompt, inPager },
    shown: paged.filter((r) => r.screen).length,
    notWaiting: paged.filter((r) => r.state !== 'waiting_for_input').length,
  };
}

/**
 * A key in a full-screen program (figure 14d): less on a long file, opened with exec_command (TERM=xterm-256color in
 * its command line, so the screens-off manager runs the same), then `write_stdin` of `chars` (or `keys`) with the
 * call's `screen` (undefined: left out), `iterations` times after `warmup`. Each reply is checked for the line less
 * must have scrolled to, on the screen when it has one, else in the output bytes.
 */
export async function pagerKeys({ iterations, warmup, returnOn, screens, screen, chars = '', keys }) {
  const manager = newManager(returnOn, screensOption(screens));
  const opened = await manager.execCommand({
    command: pagerCommand(pagerFile(), { exec: true }),
    ...BASH,
    tty: true,
    yieldTimeMs: 10_000,
  });
  const samples = [];
  let wrong = 0;
  let notWaiting = 0;
  let shown = 0;
  for (let i = 1; i <= warmup + iterations; i++) {
    const t0 = performance.now();
    const res = await manager.writeStdin({
      sessionId: opened.sessionId,
      chars,
      ...(keys ? { keys } : {}),
      ...(screen === undefined ? {} : { screen }),
      yieldTimeMs: 10_000,
    });
    if (i <= warmup) continue;
    samples.push(performance.now() - t0);
    if (!scrolledReply(res, i)) wrong++;
    if (res.state !== 'waiting_for_input') notWaiting++;
    if (res.screen) shown++;
  }
  await shutdownManager(manager);
  return { samples, wrong, notWaiting, shown };
}

export async function lagFlood({ sessions, bytes, returnOn }) {
  const manager = newManager(returnOn);
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: sessions }, () => runToExit(manager, lagFloodCommand(bytes))));
  const ms = performance.now() - t0;
  histogram.disable();
  await shutdownManager(manager);
  const received = results.reduce((sum, r) => sum + r.bytes, 0);
  return { ms, received, lag: lagOf(histogram) };
}

/**
 * Figure 17: one client (a manager of its own, as each MCP client has) sends an input that once froze the server,
 * while another runs `echo` every `gapMs`; the event-loop lag over the whole, and the slowest `echo`.
 */
export async function adversarialLag({ input, gapMs }) {
  const { cmd, tty } = ADVERSARIAL_INPUTS[input];
  const attacker = newManager('input-wait');
  const victim = newManager('input-wait');
  const histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  histogram.enable();
  const t0 = performance.now();
  let done = false;
  const attack = runAdversarial(attacker, cmd, tty).finally(() => (done = true));
  const echoMs = [];
  while (!done) {
    const before = performance.now();
    await victim.execCommand({ command: 'echo hi', ...BASH, yieldTimeMs: 10_000 });
    echoMs.push(performance.now() - before);
    await idle(gapMs);
  }
  const outcome = await attack;
  const ms = performance.now() - t0;
  histogram.disable();
  await shutdownManager(attacker);
  await shutdownManager(victim);
  return { ms, lag: lagOf(histogram), echoes: echoMs.length, echoMaxMs: Math.max(...echoMs), outcome };
}

/** Runs an adversarial `cmd` to its end (a refused patch is an answer too); what came back, in a word. */
async function runAdversarial(manager, cmd, tty) {
  try {
    let res = await manager.execCommand({ command: cmd, ...BASH, tty, yieldTimeMs: 30_000 });
    while (res.exitCode === undefined) {
      res = await manager.writeStdin({ sessionId: res.sessionId, chars: '', yieldTimeMs: 30_000 });
    }
    return `exit ${res.exitCode}`;
  } catch (error) {
    return error.code ?? 'error';
  }
}

/**
 * The scenario table of the test suite. `every` picks every n-th scenario (a spread across its categories) to keep
 * the deadline rule, which waits out every yield, within the time budget.
 */
export async function scenarios({ returnOn, every = 1, caps }) {
  let suite;
  try {
    suite = await loadScenarioSuite();
  } catch (err) {
    return { skipped: `scenario suite not loadable: ${err.message}` };
  }
  const tap = new OutputTap(new LocalExecutor());
  // In a workspace of its own: the scenarios leave files in their folder (ipython's profile).
  const manager = newManager(returnOn, { executor: tap, cwd: makeWorkspace() });
  const results = [];
  const picked = suite.scenarios.filter((_, i) => i % every === 0);
  for (const scenario of picked) {
    const run = returnOn === 'deadline' ? capYields(scenario, caps) : scenario;
    results.push(await measureScenario(manager, tap, suite.runScenario, run));
  }
  await shutdownManager(manager);
  return { source: 'test/input-wait/scenarios.ts', total: suite.scenarios.length, results };
}
