// The real Codex CLI runs the same scripts of exec_command / write_stdin calls twice: locally, and through an
// exec-server (CODEX_EXEC_SERVER_URL). What its model reads must not depend on where the commands ran. First against
// the real `codex exec-server`, which proves the harness; then against ours.
//
// Remote runs go through the reference kit's tap.mjs, which logs every frame Codex and the exec-server exchange: the
// test checks from it that Codex really started each command on the server, and a failing test keeps the log (its
// path is printed). CODEX_TAP_DIR=/some/folder keeps every log there. The tap relays no headers, so ours runs with
// --no-auth behind it (loopback, for the length of the test); a last case has Codex send our server its token.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PINNED_CODEX_VERSION } from '../clients/clients-install.js';
import { codexSkipReason, runCodexScript, type CodexRun, type CodexStep } from './codex-driver.js';
import { clientMethods, startTap } from './exec-server-tap.js';
import { normalizeAnswers, type NormalizedAnswer } from './normalize.js';
import { startOurExecServer } from './our-exec-server.js';
import { startRealExecServer } from './real-exec-server.js';
import { makeStateDir } from './spawned.js';
import type { RunningServer } from './ws-server-process.js';

interface Script {
  readonly title: string;
  readonly steps: CodexStep[];
  /** What Codex answers locally, normalised: the remote run must read the same. */
  readonly expected: string[];
}

/** Codex's answer text once normalised. */
const answer = (status: string, tokens: number, output: string) =>
  `Chunk ID: <chunk>\nWall time: <wall> seconds\n${status}\nOriginal token count: ${tokens}\nOutput:\n${output}`;
const exited = (code: number) => `Process exited with code ${code}`;
const running = 'Process running with session ID <session>';

// Yields are chosen so each answer's output is complete and the process state settled well before the deadline:
// Codex answers a live session only at its yield, and an exit as soon as it happens.
const SCRIPTS: Script[] = [
  {
    title: 'a command that prints and exits',
    steps: [{ name: 'exec_command', args: { cmd: 'echo hello' } }],
    expected: [answer(exited(0), 2, 'hello\n')],
  },
  {
    title: 'a python REPL in a terminal, typed into, then exited',
    steps: [
      // The prompt is up ~0.3 s after start (Codex runs `bash -lc`, and root's profile is slow); 3 s leave it room
      // on a busy machine, through an exec-server too.
      { name: 'exec_command', args: { cmd: 'python3 -q -i', tty: true, yield_time_ms: 3000 } },
      // The terminal echoes the input with \r\n, then the result and the next prompt.
      { name: 'write_stdin', args: { session_id: '$SESSION', chars: 'print(6*7)\n', yield_time_ms: 2000 } },
      { name: 'write_stdin', args: { session_id: '$SESSION', chars: 'exit()\n', yield_time_ms: 2000 } },
    ],
    expected: [
      answer(running, 1, '>>> '),
      answer(running, 5, 'print(6*7)\r\n42\r\n>>> '),
      answer(exited(0), 2, 'exit()\r\n'),
    ],
  },
  {
    title: 'a long-running command, polled until it exits',
    steps: [
      // "1" comes once the login shell is up (~0.3 s, more on a busy machine) and "2" 3 s later: a 1.5 s yield
      // falls well between them.
      {
        name: 'exec_command',
        args: { cmd: 'echo 1; sleep 3; echo 2; echo 3', yield_time_ms: 1500 },
      },
      // Codex holds an empty poll for at least 5 s unless the process exits first, so this one poll always ends
      // with the exit at ~3.5 s and holds "2" and "3"; a second poll would only meet an ended session.
      { name: 'write_stdin', args: { session_id: '$SESSION', chars: '', yield_time_ms: 5000 } },
    ],
    expected: [answer(running, 1, '1\n'), answer(exited(0), 1, '2\n3\n')],
  },
  {
    title: 'a failing command',
    // stderr and stdout reach the model as one stream.
    steps: [{ name: 'exec_command', args: { cmd: 'ls /nonexistent; exit 3' } }],
    expected: [answer(exited(3), 15, "ls: cannot access '/nonexistent': No such file or directory\n")],
  },
  {
    title: 'a command that prints its working folder and pid',
    // Remote or local, the command runs in Codex's work folder, in a shell of its own. Codex counts the tokens of
    // the text before it is normalised, so both lengths are fixed: the folder's name is always 30 characters, and
    // the pid is padded to 8 digits (pid_max is at most 7); 44 bytes make 11 tokens (a quarter, rounded up).
    steps: [{ name: 'exec_command', args: { cmd: "pwd; printf 'PID=%08d\\n' $$" } }],
    expected: [answer(exited(0), 11, '<workdir>\nPID=<pid>\n')],
  },
];

const SERVERS: { readonly name: string; readonly start: () => Promise<RunningServer> }[] = [
  { name: 'the real codex exec-server', start: () => startRealExecServer() },
  { name: 'our exec-server', start: () => startOurExecServer({ auth: 'none' }) },
];

const timings: string[] = [];

function normalized(run: CodexRun): NormalizedAnswer[] {
  return normalizeAnswers(run.answers, { workDir: run.workDir });
}

function record(label: string, run: CodexRun): void {
  const roundtrips = run.answers.map((a) => a.roundtripMs);
  timings.push(`${label}: ${Math.round(run.elapsedMs)} ms (round trips ${roundtrips.join(', ')} ms)`);
}

/** One remote run through tap.mjs, with the methods Codex sent the server. The tap's log stays in `tapDir`. */
async function runRemote(steps: CodexStep[], serverUrl: string, tapDir: string) {
  const tap = await startTap(serverUrl, tapDir);
  try {
    const run = await runCodexScript(steps, { execServerUrl: tap.url, timeoutMs: 45_000 });
    return { run, methods: clientMethods(tap.logPath) };
  } finally {
    await tap.stop();
  }
}

/** Where this test's tap logs go: CODEX_TAP_DIR, else a folder removed when the test passes. */
function tapDirForTest(): string {
  const kept = process.env.CODEX_TAP_DIR;
  if (kept) return kept;
  const dir = makeStateDir('codex-tap-');
  onTestFinished(({ task }) => {
    if (task.result?.state === 'fail') console.info(`tap log of the failed run kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

const unavailable = codexSkipReason();

describe.skipIf(unavailable !== undefined)(
  unavailable
    ? `Codex CLI interop (skipped: ${unavailable})`
    : `Codex CLI ${PINNED_CODEX_VERSION}, local and through an exec-server`,
  () => {
    afterAll(() => console.info(`Codex runs:\n${timings.join('\n')}`));

    describe.each(SERVERS)('through $name', ({ name, start }) => {
      let server: RunningServer | undefined;
      let startError: unknown;
      // A server that does not start fails each case with the reason, rather than skipping them.
      beforeAll(async () => {
        server = await start().catch((error: unknown) => void (startError = error));
      });
      afterAll(async () => {
        await server?.stop();
      });

      it.each(SCRIPTS)('answers $title as Codex does locally', async ({ title, steps, expected }) => {
        if (!server) throw new Error(`${name} did not start`, { cause: startError });
        // A local and a remote run at once: each is mostly Codex waiting for yields, and 2 cores suffice.
        const [local, remote] = await Promise.all([
          runCodexScript(steps, { timeoutMs: 45_000 }),
          runRemote(steps, server.url, tapDirForTest()),
        ]);
        record(`${title}, local`, local);
        record(`${title}, ${name}`, remote.run);
        expect(normalized(local).map((a) => a.output)).toEqual(expected);
        expect(normalized(remote.run)).toEqual(normalized(local));
        // And the remote run did not pass by running locally: Codex started each command on the server.
        const starts = remote.methods.filter((method) => method === 'process/start');
        expect(starts).toHaveLength(steps.filter((step) => step.name === 'exec_command').length);
      });
    });

    it('sends our exec-server its token from environments.toml, and runs there', async () => {
      const server = await startOurExecServer();
      try {
        const steps: CodexStep[] = [{ name: 'exec_command', args: { cmd: "printf 'PID=%08d\\n' $$" } }];
        const environment = { url: server.url, token: server.token! };
        const withToken = await runCodexScript(steps, { environment, timeoutMs: 45_000 });
        const [reply] = normalized(withToken).map((a) => a.output);
        expect(reply).toBe(answer(exited(0), 4, 'PID=<pid>\n'));
        // The token is what let it in: with another, Codex finds no environment to run in.
        const wrong = { ...environment, token: `${server.token!}x` };
        const refused = await runCodexScript(steps, { environment: wrong, timeoutMs: 45_000 });
        expect(refused.answers[0]?.output).toContain('No usable execution environment is available');
      } finally {
        await server.stop();
      }
    });
  },
);
