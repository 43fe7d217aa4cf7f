// Codex's own unified exec tests, each as a script of model calls whose answers are compared with the real Codex CLI's.
import type { CodexStep } from './codex-driver.js';

export interface PortCase {
  readonly title: string;
  /** The Codex tests (openai/codex, codex-rs/core) the script comes from. */
  readonly from: readonly string[];
  readonly steps: readonly CodexStep[];
  /**
   * Run before the batches, on its own and its three runs one after another: a script whose margin is less than the
   * second the others keep (see Timing below), so the run's own load must not eat it.
   */
  readonly alone?: true;
}

const exec = (args: Record<string, unknown>): CodexStep => ({ name: 'exec_command', args });
const write = (chars: string, yieldTimeMs: number, extra: Record<string, unknown> = {}): CodexStep => ({
  name: 'write_stdin',
  args: { session_id: '$SESSION', chars, yield_time_ms: yieldTimeMs, ...extra },
});

/** A session id neither side ever hands out: both pick 5-digit ids. */
const UNKNOWN_SESSION_ID = 4_242_424;

// Timing: Codex answers a live session only at its yield (an empty poll after at least 5 s), an exit as soon as it
// happens. Every script leaves a second or more between what it waits for and the yield that must (or must not)
// see it, so a busy machine cannot move output from one answer to the next.
export const PORT_CASES: readonly PortCase[] = [
  {
    title: 'a short command prints and exits',
    from: ['suite::unified_exec_runs_on_all_platforms'],
    steps: [exec({ cmd: "echo 'hello crossplat'" })],
  },
  {
    title: 'a command exits with its own code, with and without a terminal',
    from: ['mod_tests::completed_pipe_commands_preserve_exit_code'],
    steps: [exec({ cmd: 'exit 17' }), exec({ cmd: 'echo out; echo err >&2; exit 17', tty: true })],
  },
  {
    title: 'a command that exits early answers at once, not at its long yield',
    from: ['suite::unified_exec_respects_early_exit_notifications'],
    steps: [exec({ cmd: 'sleep 0.05', yield_time_ms: 31_415 })],
  },
  {
    title: 'a yield below the minimum still sees a quick command exit',
    from: [
      'suite::unified_exec_emits_one_begin_and_one_end_event',
      'process_manager_tests::initial_exec_yield_time_has_no_platform_floor',
    ],
    // Not a login shell, and a short sleep: the floor is what is ported. Its margin is the 250 ms floor itself, which
    // a start beside the batches' eight other servers and clients on a loaded CI once overran (ours answered
    // `running`): it runs alone.
    steps: [exec({ cmd: 'sleep 0.01', login: false, yield_time_ms: 10 })],
    alone: true,
  },
  {
    title: 'output truncated to max_output_tokens keeps its head and tail and the original count',
    from: ['suite::exec_command_reports_chunk_and_exit_metadata'],
    steps: [
      exec({
        cmd: "printf 'token one token two token three token four token five token six token seven'",
        yield_time_ms: 2_000,
        max_output_tokens: 6,
      }),
    ],
  },
  {
    title: 'many lines truncated to max_output_tokens',
    from: ['suite::unified_exec_formats_large_output_summary'],
    steps: [
      exec({
        cmd: `python3 -c 'import sys; sys.stdout.write("token token \\n" * 5000)'`,
        max_output_tokens: 100,
        yield_time_ms: 10_000,
      }),
    ],
  },
  {
    title: 'a max_output_tokens above the limit is clamped to it (exec_command, pipes)',
    from: ['suite::exec_command_clamps_model_requested_max_output_tokens_to_policy'],
    steps: [
      exec({
        cmd: "i=1; while [ $i -le 9999 ]; do printf 'EXEC-LINE-%04d xxxxxxxxxxxxxxxxxxxx\\n' $i; i=$((i+1)); done",
        yield_time_ms: 10_000,
        max_output_tokens: 70_000,
      }),
    ],
  },
  {
    title: 'a max_output_tokens above the limit is clamped to it (write_stdin, terminal)',
    from: ['suite::write_stdin_clamps_model_requested_max_output_tokens_to_policy'],
    steps: [
      exec({
        cmd: "printf 'READY\\n'; read trigger; i=1; while [ $i -le 9999 ]; do printf 'STDIN-LINE-%04d yyyyyyyyyyyyyyyyyyyy\\n' $i; i=$((i+1)); done",
        yield_time_ms: 2_000,
        tty: true,
      }),
      write('go\n', 10_000, { max_output_tokens: 70_000 }),
    ],
  },
  {
    title: 'output over the 1 MiB buffer keeps its head and tail',
    from: [
      'mod_tests::push_chunk_preserves_prefix_and_suffix',
      'mod_tests::head_tail_buffer_default_preserves_prefix_and_suffix',
    ],
    steps: [exec({ cmd: 'seq 1 300000', yield_time_ms: 10_000 })],
  },
  {
    title: 'bytes that are not UTF-8 reach the model as replacement characters',
    from: ['async_watcher_tests::split_valid_utf8_prefix_makes_progress_on_invalid_utf8'],
    steps: [exec({ cmd: "printf 'caf\\303\\251 \\377 \\344\\270\\255\\n'" })],
  },
  {
    title: 'commands run in pipes unless tty is asked for',
    from: ['suite::unified_exec_defaults_to_pipe', 'suite::unified_exec_can_enable_tty'],
    steps: [
      exec({ cmd: `python3 -c "import sys; print(sys.stdin.isatty())"`, yield_time_ms: 5_000 }),
      exec({ cmd: `python3 -c "import sys; print(sys.stdin.isatty())"`, yield_time_ms: 5_000, tty: true }),
    ],
  },
  {
    title: 'the session environment Codex sets',
    from: ['process_manager_tests::unified_exec_env_injects_defaults'],
    steps: [
      exec({
        cmd: 'for v in NO_COLOR TERM LANG LC_CTYPE LC_ALL COLORTERM PAGER GIT_PAGER GH_PAGER CODEX_CI; do echo "$v=${!v-<unset>}"; done',
      }),
    ],
  },
  {
    title: 'a relative workdir starts in the work folder, an absolute one where it says',
    from: ['suite::unified_exec_resolves_relative_workdir', 'suite::unified_exec_respects_workdir_override'],
    steps: [
      exec({
        cmd: 'mkdir uexec_relative_workdir && printf resolved-relative-workdir > uexec_relative_workdir/cwd-marker.txt',
      }),
      exec({ cmd: 'cat cwd-marker.txt', workdir: 'uexec_relative_workdir' }),
      exec({ cmd: 'pwd', workdir: '/usr' }),
    ],
  },
  {
    title: 'a command still running answers empty, and a later poll gets its output and exit',
    from: ['suite::unified_exec_timeout_and_followup_poll'],
    steps: [exec({ cmd: 'sleep 1; echo ready', yield_time_ms: 10 }), write('', 5_000)],
  },
  {
    title: 'cat in a terminal echoes input, keeps its session, and exits on Ctrl-D',
    from: [
      'suite::write_stdin_returns_exit_metadata_and_clears_session',
      'suite::unified_exec_reuses_session_via_stdin',
      'suite::unified_exec_emits_end_event_when_session_dies_via_stdin',
    ],
    steps: [
      exec({ cmd: '/bin/cat', yield_time_ms: 1_000, tty: true }),
      write('hello unified exec\n', 1_000),
      write('\u0004', 2_000),
    ],
  },
  {
    title: 'Ctrl-C to a session without a terminal runs its trap',
    from: ['suite::write_stdin_ctrl_c_interrupts_non_tty_session'],
    steps: [
      exec({
        cmd: "trap 'echo INT-TRAP; exit 42' INT; echo READY; while true; do sleep 30; done",
        yield_time_ms: 1_000,
        tty: false,
      }),
      write('\u0003', 3_000),
    ],
  },
  {
    title: 'Ctrl-C to a session without a terminal ends it with 130',
    from: ['suite::write_stdin_ctrl_c_default_interrupt_reports_130_for_non_tty_session'],
    steps: [exec({ cmd: 'echo READY; exec sleep 30', yield_time_ms: 1_000, tty: false }), write('\u0003', 3_000)],
  },
  {
    title: 'Ctrl-C in a terminal interrupts the program',
    from: ['suite::write_stdin_ctrl_c_interrupts_non_tty_session (with tty: true)'],
    steps: [exec({ cmd: 'echo READY; exec sleep 30', yield_time_ms: 1_000, tty: true }), write('\u0003', 3_000)],
  },
  {
    title: 'input to a session without a terminal is refused: its stdin is closed',
    from: ['process_tests::remote_write_closed_stdin_marks_process_exited'],
    steps: [
      exec({ cmd: 'echo READY; exec sleep 30', yield_time_ms: 1_000 }),
      write('hello\n', 1_000),
      write('\u0003', 3_000),
    ],
  },
  {
    title: 'an unknown session id is an error',
    from: ['suite::unified_exec_prunes_exited_sessions_first (its probe)'],
    steps: [{ name: 'write_stdin', args: { session_id: UNKNOWN_SESSION_ID, chars: '', yield_time_ms: 1_000 } }],
  },
  {
    title: 'an interactive shell keeps its state across calls, and a new command runs in a fresh shell',
    from: [
      'mod_tests::unified_exec_persists_across_requests',
      'mod_tests::multi_unified_exec_sessions',
      'suite::unified_exec_emits_terminal_interaction_for_write_stdin',
    ],
    steps: [
      exec({ cmd: 'bash --norc -i', yield_time_ms: 2_500, tty: true }),
      write('export CODEX_INTERACTIVE_SHELL_VAR=codex\n', 2_500),
      exec({ cmd: 'echo "[$CODEX_INTERACTIVE_SHELL_VAR]"', yield_time_ms: 2_500 }),
      write('echo "[$CODEX_INTERACTIVE_SHELL_VAR]"\n', 2_500),
    ],
  },
  {
    title: 'a yield too short for a command leaves its output to the next poll',
    from: ['mod_tests::unified_exec_timeouts'],
    steps: [
      exec({ cmd: 'bash --norc -i', yield_time_ms: 2_500, tty: true }),
      write('export CODEX_INTERACTIVE_SHELL_VAR=unified_exec_var_123\n', 2_500),
      write('sleep 2 && echo $CODEX_INTERACTIVE_SHELL_VAR\n', 10),
      write('', 5_000),
    ],
  },
  {
    title: 'a session that exited is unknown to the next call',
    from: ['mod_tests::reusing_completed_process_returns_unknown_process'],
    steps: [exec({ cmd: 'bash --norc -i', yield_time_ms: 2_500, tty: true }), write('exit\n', 2_500), write('', 1_000)],
  },
  {
    title: 'output printed later reaches the poll that is waiting when it comes',
    from: ['suite::unified_exec_terminal_interaction_captures_delayed_output'],
    steps: [
      exec({ cmd: 'sleep 2 && echo MARKER1 && sleep 4 && echo MARKER2', yield_time_ms: 10, tty: true }),
      write('x', 250),
      write('x', 3_000),
      write('x', 6_000),
    ],
  },
  {
    title: 'a poll after much output gets its tail',
    from: ['suite::unified_exec_streams_after_lagged_output'],
    steps: [
      exec({
        cmd: [
          "python3 - <<'PY'",
          'import sys, time',
          'time.sleep(1)',
          "chunk = b'long content here to trigger truncation' * (1 << 10)",
          'for _ in range(4):',
          '    sys.stdout.buffer.write(chunk)',
          '    sys.stdout.flush()',
          'for _ in range(5):',
          '    sys.stdout.write("TAIL-MARKER\\n")',
          '    sys.stdout.flush()',
          'PY',
        ].join('\n'),
        yield_time_ms: 25,
        tty: true,
      }),
      write('', 5_000),
    ],
  },
  {
    title: 'a python REPL in a terminal shows its prompt and exits on exit()',
    from: ['suite::unified_exec_python_prompt_under_seatbelt (unsandboxed here)'],
    steps: [exec({ cmd: 'python3 -q -i', yield_time_ms: 3_000, tty: true }), write('exit()\n', 3_000)],
  },
  {
    title: 'apply_patch typed into exec_command is applied as Codex applies it',
    from: ['suite::unified_exec_intercepts_apply_patch_exec_command'],
    steps: [
      exec({
        cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: uexec_apply.txt\n+hello from unified exec\n*** End Patch\nEOF\n",
        yield_time_ms: 5_000,
      }),
      exec({ cmd: 'cat uexec_apply.txt' }),
    ],
  },
];
