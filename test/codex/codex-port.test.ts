// Codex's own unified exec tests, run against us. Each test of openai/codex (codex-rs/core/tests/suite/unified_exec.rs
// and codex-rs/core/src/unified_exec/*_tests.rs) that is about what the model reads becomes a script of exec_command /
// write_stdin calls (port-cases.ts names the tests each comes from). Every script runs through the real Codex CLI
// (the oracle, offline, as codex-driver.ts drives it) and through our `mcp` over stdio with the real MCP SDK client,
// both unsandboxed as the reference kit runs Codex; the texts the model reads must agree once normalised.
//
// Ours runs twice, and both must read exactly as Codex: with `--return-on deadline`, and with the default
// (input-wait), where a live terminal call may answer as soon as the program waits for input (wall times are
// normalised on both sides anyway). Each script's output is settled well before its yield, so answering early changes
// nothing else.
//
// Left out, and why:
// - Events, not model text: unified_exec_emits_exec_command_begin_event, _end_event, _output_delta_for_exec_command,
//   _full_lifecycle_with_background_end_event, _emits_terminal_interaction_for_write_stdin (its script is ported),
//   _terminal_interaction_captures_delayed_output (ported), _emits_one_begin_and_one_end_event (its first call ported).
// - Codex's sandbox and network proxy (we run unsandboxed here, as the reference config does; test/sandbox covers
//   ours): _network_denial_emits_failed_background_end_event, _short_lived_network_denial_emits_failed_end_event,
//   _runs_under_sandbox, _enforces_glob_deny_read_policy; process_manager_tests' network denial tests.
// - Codex's turn lifecycle (turn end, Op::Interrupt, CleanBackgroundTerminals): _keeps_long_running_session_after_
//   turn_end, _interrupt_preserves_long_running_session.
// - Windows only: write_stdin_ctrl_c_reports_unsupported_interrupt_to_model_on_windows.
// - Internals (process store, exec-server params, env overlay for exec-servers, remote process mocks, streaming
//   grace timers, pruning choice on plain data, the head/tail buffer's chunks): process_manager_tests'
//   env_overlay_*, exec_env_policy_*, exec_server_params_*, pruning_* (ours: test/manager prune tests);
//   process_tests (remote mocks); async_watcher_tests' streaming_*, exit_watcher_*, split_valid_utf8_* (one ported as
//   the invalid UTF-8 script); mod_tests' unified_exec_uses_remote_exec_server_when_configured,
//   remote_exec_server_rejects_inherited_fd_launches (test/codex/codex-local-vs-remote covers remote runs).
// - Ignored upstream, and slow: requests_with_large_timeout_are_capped (a 30 s yield),
//   completed_commands_do_not_persist_sessions, unified_exec_prunes_exited_sessions_first (64 sessions).
// - unified_exec_pause_blocks_yield_timeout: an out-of-band elicitation pause inside Codex; no model call makes one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PINNED_CODEX_VERSION } from '../clients/clients-install.js';
import { codexSkipReason, runCodexScript, type CodexAnswer, type CodexStep } from './codex-driver.js';
import { normalizeCodexText, normalizeReportedSessions } from './normalize.js';
import { runOurScript } from './our-mcp-script.js';
import { PORT_CASES, type PortCase } from './port-cases.js';

/**
 * Codex is started as from a dumb terminal. Codex sets TERM=dumb in its sessions, but once its snapshot of the login
 * shell is ready (a second or so after start) the snapshot puts back the TERM Codex was started with: the same
 * command then reads TERM=dumb early in a run and TERM=xterm later (bash then prints bracketed-paste switches around
 * its prompt). Ours always says TERM=dumb; started with TERM=dumb, Codex does too, whatever its timing.
 */
const CODEX_TERMINAL = { TERM: 'dumb' };

/** The scripts of one Codex run (each run costs Codex's start-up): a few runs at once, each mostly waiting. */
const BATCHES = 3;

interface Texts {
  readonly codex: string[];
  readonly deadline: string[];
  readonly inputWait: string[];
}

/** The answers' texts, normalised: ids, times, the work folder, and ids the run reported inside error messages. */
function normalizedTexts(answers: readonly CodexAnswer[], workDir: string): string[] {
  const reported: number[] = [];
  return answers.map(({ output }) => {
    const match = /session ID (\d+)/.exec(output);
    if (match) reported.push(Number(match[1]));
    return normalizeReportedSessions(normalizeCodexText(output, { workDir }), reported);
  });
}

function batchesOf(cases: readonly PortCase[]): PortCase[][] {
  const batches: PortCase[][] = Array.from({ length: BATCHES }, () => []);
  cases.filter((script) => !script.alone).forEach((script, i) => batches[i % BATCHES]?.push(script));
  return batches;
}

/** Splits a batch's answers back into its scripts'; a missing answer reads as such. */
function splitAnswers(cases: readonly PortCase[], texts: readonly string[]): Map<PortCase, string[]> {
  const byCase = new Map<PortCase, string[]>();
  let at = 0;
  for (const script of cases) {
    byCase.set(
      script,
      script.steps.map((_, i) => texts[at + i] ?? '<no answer>'),
    );
    at += script.steps.length;
  }
  return byCase;
}

const unavailable = codexSkipReason();

describe.skipIf(unavailable !== undefined)(
  unavailable
    ? `Codex's unified exec tests ported (skipped: ${unavailable})`
    : `Codex ${PINNED_CODEX_VERSION}'s unified exec tests, run against us`,
  () => {
    const results = new Map<PortCase, Texts>();
    const timings: string[] = [];

    beforeAll(async () => {
      if (unavailable) throw new Error(`Codex CLI unavailable under CI: ${unavailable}`);
      const run = async (cases: PortCase[], name: string, together: boolean) => {
        const steps: CodexStep[] = cases.flatMap((script) => [...script.steps]);
        const startCodex = () => runCodexScript(steps, { timeoutMs: 150_000, env: CODEX_TERMINAL });
        const startDeadline = () => runOurScript(steps, ['--return-on', 'deadline']);
        const startInputWait = () => runOurScript(steps);
        const [codex, deadline, inputWait] = together
          ? await Promise.all([startCodex(), startDeadline(), startInputWait()])
          : [await startCodex(), await startDeadline(), await startInputWait()];
        timings.push(
          `${name} (${steps.length} calls): Codex ${Math.round(codex.elapsedMs)} ms, ours ` +
            `${Math.round(deadline.elapsedMs)} ms (deadline), ${Math.round(inputWait.elapsedMs)} ms (input-wait)`,
        );
        return { codex, deadline, inputWait };
      };
      for (const script of PORT_CASES.filter((c) => c.alone)) {
        const { codex, deadline, inputWait } = await run([script], `alone: ${script.title}`, false);
        results.set(script, {
          codex: normalizedTexts(codex.answers, codex.workDir),
          deadline: normalizedTexts(deadline.answers, deadline.workDir),
          inputWait: normalizedTexts(inputWait.answers, inputWait.workDir),
        });
      }
      await Promise.all(
        batchesOf(PORT_CASES).map(async (cases, i) => {
          const { codex, deadline, inputWait } = await run(cases, `batch ${i + 1}`, true);
          const codexTexts = splitAnswers(cases, normalizedTexts(codex.answers, codex.workDir));
          const deadlineTexts = splitAnswers(cases, normalizedTexts(deadline.answers, deadline.workDir));
          const inputWaitTexts = splitAnswers(cases, normalizedTexts(inputWait.answers, inputWait.workDir));
          for (const script of cases) {
            results.set(script, {
              codex: codexTexts.get(script) ?? [],
              deadline: deadlineTexts.get(script) ?? [],
              inputWait: inputWaitTexts.get(script) ?? [],
            });
          }
        }),
      );
    }, 240_000);

    afterAll(() => console.info(`Codex port runs:\n${timings.join('\n')}`));

    describe.each(PORT_CASES)('$title', (script) => {
      it(`reads as Codex (${script.from.join(', ')})`, () => {
        const texts = results.get(script);
        expect(texts?.codex).toHaveLength(script.steps.length);
        expect(texts?.deadline).toEqual(texts?.codex);
      });

      it('reads as Codex with input-wait too', () => {
        const texts = results.get(script);
        expect(texts?.inputWait).toEqual(texts?.codex);
      });
    });
  },
);
