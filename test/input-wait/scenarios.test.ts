import { afterAll, describe, expect, it } from 'vitest';
import type { ManagerOptions, UnifiedExecManager } from '../../src/index.js';
import { newManager } from '../helpers/manager.js';
import { missingTools, titled } from '../helpers/needs.js';
import { BACKENDS, useWorkspace } from '../sandbox/sandbox-helpers.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import { SCENARIOS, type InputWaitScenario } from './scenarios.js';

// Real shells and REPLs in real PTYs through the manager's default (input-wait) return rule: without a sandbox, and
// in the sandbox mcp and serve use by default (workspace-write, network off, a fresh workspace) on each backend,
// where bubblewrap and its init sit above the program and the terminal may show under another name. Run one after
// another: each asserts on timing. Each scenario is its own test, asserting its own state and that it did not answer
// prematurely, so any one of them can run alone (`-t`); the tally below is a log line, not an assertion, because
// a tally over the file would pass or fail depending on which tests ran before it.
/**
 * `noSockets`: the backend allows no socket with the network off (Landlock), so the scenarios that make one are not
 * scenarios of it: they are left out (and the tally says how many ran), not skipped.
 */
function scenarioSuite(label: string, options: () => ManagerOptions, noSockets = false): void {
  let manager: UnifiedExecManager;
  const results: ScenarioResult[] = [];
  const scenarios = SCENARIOS.filter((scenario) => !(noSockets && scenario.sockets));

  afterAll(async () => {
    await manager?.shutdown();
    const correct = results.filter((r) => r.stateCorrect).length;
    const premature = results.filter((r) => r.premature).length;
    console.log(
      `input-wait scenarios (${label}): ${results.length} of ${scenarios.length} run` +
        `${scenarios.length < SCENARIOS.length ? ` (${SCENARIOS.length - scenarios.length} that make sockets left out)` : ''}, ` +
        `${correct} correct states, ` +
        `${premature} premature returns, ` +
        `${(results.reduce((sum, r) => sum + r.wallMs, 0) / 1000).toFixed(2)} s of measured wall time`,
    );
  });

  for (const scenario of scenarios) {
    const skip = missingTools(...(scenario.needs ?? []));
    it.skipIf(skip !== undefined)(titled(scenario.name, skip), () => runOne(scenario));
  }

  async function runOne(scenario: InputWaitScenario): Promise<void> {
    manager ??= newManager(options());
    const result = await runScenario(manager, scenario);
    results.push(result);
    const { response } = result;
    const { state, output } = response;
    const detail = JSON.stringify({ state, wallMs: Math.round(result.wallMs), output });

    expect(result.stepProblems, detail).toEqual([]);
    expect(result.premature, detail).toBe(false);
    expect(response.state, detail).toBe(scenario.expectState);
    expect(result.missing, detail).toEqual([]);
    for (const piece of scenario.expectOutput) expect(output).toContain(piece);
    for (const secret of scenario.rejectOutput ?? []) expect(output).not.toContain(secret);
    expect(response.secretPrompt ?? false, detail).toBe(scenario.expectSecret ?? false);
    if (scenario.expectExitCode !== undefined) expect(response.exitCode, detail).toBe(scenario.expectExitCode);
    if (scenario.minWallMs !== undefined) expect(result.wallMs, detail).toBeGreaterThanOrEqual(scenario.minWallMs);
    if (scenario.expectState === 'running') {
      // It waited out its deadline rather than answering early (timers may fire a millisecond or two early).
      expect(result.wallMs, detail).toBeGreaterThanOrEqual(scenario.yieldTimeMs - 5);
    } else {
      // An exit or an input-wait return: well before the deadline.
      expect(result.wallMs, detail).toBeLessThan(scenario.yieldTimeMs / 2);
    }
  }
}

describe('input-wait return through UnifiedExecManager, no sandbox', () => {
  const ws = useWorkspace();
  scenarioSuite('no sandbox', () => ({ cwd: ws.dir }));
});

// The default sandbox on each backend (CI has both: there a backend that cannot run fails instead of skipping).
describe.each(BACKENDS)(
  'input-wait return in the default sandbox (workspace-write) on $backend',
  ({ backend, skip }) => {
    if (skip) it.skip(`skipped: ${skip}`, () => undefined);
    else {
      const ws = useWorkspace();
      scenarioSuite(
        `default sandbox on ${backend}`,
        () => ({ cwd: ws.dir, sandbox: 'workspace-write', sandboxBackend: backend }),
        backend === 'landlock',
      );
    }
  },
);
