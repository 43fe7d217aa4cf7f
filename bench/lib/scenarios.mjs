/**
 * The scenario figure replays the input-wait scenario table of the test suite (test/input-wait/scenarios.ts)
 * through the suite's own runner (test/input-wait/run-scenario.ts), so "correct state" and "premature" mean
 * exactly what the tests mean. Both are transpiled on the fly with the project's TypeScript (test-modules.mjs); no
 * TS runner is needed. On top, the bench measures wasted wait: an executor wrapper
 * timestamps every output chunk as the manager receives it, and a manager wrapper times each call.
 */
import { importTestModule } from './test-modules.mjs';

/** Wraps an executor; records every output chunk of every process with its arrival time. */
export class OutputTap {
  constructor(inner) {
    this.inner = inner;
    this.chunks = [];
    this.lastPid = undefined;
    this.exits = new Map();
    this.location = inner.location;
    this.appliesPatches = inner.appliesPatches;
  }

  check(request) {
    return this.inner.check(request);
  }

  prepare(request) {
    return this.inner.prepare(request);
  }

  close() {
    return this.inner.close();
  }

  async start(request) {
    const started = await this.inner.start(request);
    const proc = started.process;
    this.lastPid = proc.pid;
    proc.onExit(() => this.exits.set(proc.pid, performance.now()));
    // Latin-1 keeps one char per byte, so pieces (ASCII) match however chunks split. Subscribed in the tick of the
    // spawn, before any output can come, so the session (which subscribes next) misses none.
    proc.onData((chunk) => this.chunks.push({ pid: proc.pid, t: performance.now(), text: chunk.toString('latin1') }));
    return started;
  }
}

/** The table and the runner, transpiled; throws with a reason when they are missing or do not load. */
export async function loadScenarioSuite() {
  const { SCENARIOS } = await importTestModule('test/input-wait/scenarios.ts');
  const { runScenario } = await importTestModule('test/input-wait/run-scenario.ts');
  if (!Array.isArray(SCENARIOS) || typeof runScenario !== 'function') throw new Error('unexpected exports');
  return { scenarios: SCENARIOS, runScenario };
}

/** The manager as runScenario sees it, with every execCommand/writeStdin call timed. */
function timedManager(manager, calls) {
  const timed = (name) => async (request) => {
    const t0 = performance.now();
    const response = await manager[name](request);
    calls.push({ t0, t1: performance.now(), response });
    return response;
  };
  return {
    execCommand: timed('execCommand'),
    writeStdin: timed('writeStdin'),
    listSessions: () => manager.listSessions(),
    closeSession: (id) => manager.closeSession(id),
  };
}

/** Yields for the deadline rule: capped, so a 10 s yield does not cost 10 s per scenario. */
export function capYields(scenario, caps) {
  const step = (s) => (typeof s === 'string' ? { chars: s } : s);
  return {
    ...scenario,
    yieldTimeMs: Math.min(scenario.yieldTimeMs, caps.measured),
    startYieldTimeMs: Math.min(scenario.startYieldTimeMs ?? 10_000, caps.start),
    // The runner's step check expects waiting_for_input, which the deadline rule never reports; that is no error.
    setup: (scenario.setup ?? []).map((s) => ({
      ...step(s),
      yieldTimeMs: Math.min(step(s).yieldTimeMs ?? 10_000, caps.step),
    })),
  };
}

/** Arrival time of the chunk that completed `pieces` (in order) after `since`, on one process's output. */
function completedAt(chunks, pid, since, pieces) {
  let text = '';
  let at = 0;
  let next = 0;
  for (const chunk of chunks) {
    if (chunk.pid !== pid || chunk.t < since) continue;
    text += chunk.text;
    while (next < pieces.length) {
      const found = text.indexOf(pieces[next], at);
      if (found < 0) break;
      at = found + pieces[next].length;
      next++;
    }
    if (next === pieces.length) return chunk.t;
  }
  return next === pieces.length ? since : undefined;
}

/** Runs one scenario and adds the wasted wait: the measured call's end minus when its answer was complete. */
export async function measureScenario(manager, tap, runScenario, scenario) {
  const calls = [];
  tap.chunks = [];
  const result = await runScenario(timedManager(manager, calls), scenario);
  const measured = calls.find((c) => c.response === result.response);
  // Each scenario starts exactly one session: the last process the executor spawned.
  const pid = tap.lastPid;
  let wastedMs = null;
  // A 'running' answer is right exactly at its deadline; only early-answerable scenarios have a wasted wait.
  if (measured && scenario.expectState !== 'running' && result.missing.length === 0) {
    const done = completedAt(
      tap.chunks,
      pid,
      measured.t0,
      scenario.expectOutput.map((p) => Buffer.from(p).toString('latin1')),
    );
    // An 'exited' answer can come no sooner than the exit is known (after the program's own teardown).
    const exitedAt = scenario.expectState === 'exited' ? (tap.exits.get(pid) ?? measured.t0) : measured.t0;
    const ready = Math.max(done ?? measured.t0, measured.t0 + (scenario.minWallMs ?? 0), exitedAt);
    wastedMs = measured.t1 - ready;
  }
  return {
    name: scenario.name,
    expected: scenario.expectState,
    got: result.state,
    correct: result.stateCorrect,
    premature: result.premature,
    missing: result.missing.length,
    wallMs: measured ? measured.t1 - measured.t0 : result.wallMs,
    wastedMs,
    yieldTimeMs: scenario.yieldTimeMs,
  };
}
