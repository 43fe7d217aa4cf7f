/** Runs one input-wait scenario through a manager and judges the answer; shared by the suite and the benchmark. */
import type { ExecResponse, SessionState, UnifiedExecManager } from '../../src/index.js';
import type { InputWaitScenario, ScenarioStep } from './scenarios.js';

export interface ScenarioResult {
  name: string;
  /** The measured call's answer. */
  response: ExecResponse;
  state: SessionState;
  stateCorrect: boolean;
  wallMs: number;
  /** It answered before its yield time was up (an exit or an input-wait return). */
  returnedEarly: boolean;
  /** Expected pieces the output lacks (in order: a piece listed twice must occur twice). */
  missing: string[];
  /** Forbidden pieces the output holds. */
  leaked: string[];
  /** Answered early with the expected output incomplete, or claimed waiting for input while the program was busy. */
  premature: boolean;
  /** Steps before the measured call that did not end as the scenario says, e.g. `setup 1: running, expected …`. */
  stepProblems: string[];
}

const DEFAULT_STEP_YIELD_MS = 10_000;

/** The expected pieces not found in `output`, each searched after the previous one found. */
function missingInOrder(output: string, pieces: readonly string[]): string[] {
  const missing: string[] = [];
  let from = 0;
  for (const piece of pieces) {
    const at = output.indexOf(piece, from);
    if (at < 0) missing.push(piece);
    else from = at + piece.length;
  }
  return missing;
}

export async function runScenario(manager: UnifiedExecManager, scenario: InputWaitScenario): Promise<ScenarioResult> {
  const stepProblems: string[] = [];
  let prematureStep = false;
  const check = (label: string, response: ExecResponse, expected: SessionState) => {
    if (response.state === expected) return;
    stepProblems.push(`${label}: ${response.state}, expected ${expected} (output ${JSON.stringify(response.output)})`);
    if (response.state === 'waiting_for_input') prematureStep = true;
  };
  const measuredStart = scenario.input === undefined;
  const start = await manager.execCommand({
    command: scenario.cmd,
    shell: '/bin/bash',
    login: false,
    tty: true,
    yieldTimeMs: measuredStart ? scenario.yieldTimeMs : (scenario.startYieldTimeMs ?? DEFAULT_STEP_YIELD_MS),
    ...(measuredStart && scenario.maxOutputTokens !== undefined ? { maxOutputTokens: scenario.maxOutputTokens } : {}),
  });
  let response = start;
  const sessionId = start.sessionId;
  try {
    if (!measuredStart) {
      check('start', start, scenario.startState ?? 'waiting_for_input');
      for (const [i, raw] of (scenario.setup ?? []).entries()) {
        const step: ScenarioStep = typeof raw === 'string' ? { chars: raw } : raw;
        if (sessionId === undefined) break;
        const yieldTimeMs = step.yieldTimeMs ?? DEFAULT_STEP_YIELD_MS;
        const r = await manager.writeStdin({ sessionId, chars: step.chars, yieldTimeMs });
        check(`setup ${i}`, r, step.expectState ?? 'waiting_for_input');
      }
      if (sessionId === undefined) stepProblems.push('the program exited before the measured call');
      else {
        response = await manager.writeStdin({
          sessionId,
          chars: scenario.input ?? '',
          yieldTimeMs: scenario.yieldTimeMs,
          ...(scenario.maxOutputTokens !== undefined ? { maxOutputTokens: scenario.maxOutputTokens } : {}),
        });
      }
    }
  } finally {
    if (sessionId !== undefined && manager.listSessions().some((s) => s.sessionId === sessionId)) {
      await manager.closeSession(sessionId).catch(() => undefined);
    }
  }
  const wallMs = response.wallTimeSeconds * 1000;
  // The manager answers 'running' only when the yield time is up; any other answer came early.
  const returnedEarly = response.state !== 'running';
  const missing = missingInOrder(response.output, scenario.expectOutput);
  if (scenario.expectExactOutput !== undefined && response.output !== scenario.expectExactOutput) {
    missing.push(`exactly ${JSON.stringify(scenario.expectExactOutput)}`);
  }
  const leaked = (scenario.rejectOutput ?? []).filter((piece) => response.output.includes(piece));
  const claimedWaitWhileBusy = response.state === 'waiting_for_input' && scenario.expectState === 'running';
  return {
    name: scenario.name,
    response,
    state: response.state,
    stateCorrect: response.state === scenario.expectState,
    wallMs,
    returnedEarly,
    missing,
    leaked,
    premature: prematureStep || claimedWaitWhileBusy || (returnedEarly && missing.length > 0),
    stepProblems,
  };
}
