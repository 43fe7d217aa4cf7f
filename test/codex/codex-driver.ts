// Drives the real Codex CLI offline through a script of exec_command / write_stdin calls, as the reference kit's
// run.sh does: the kit's fake model server (mock.js) hands Codex the calls one by one and records what Codex's own
// unified exec answered to each.
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_CONFIG, MOCK_MODEL_SERVER, codexBinary } from './codex-install.js';
import { directEnv, endProcess, freePort, isRunning, makeStateDir, pollFor, tailOf } from './spawned.js';

export { codexSkipReason } from './codex-install.js';

/** One tool call of a script. A string "$SESSION" anywhere in `args` becomes the latest session id Codex reported. */
export interface CodexStep {
  readonly name: 'exec_command' | 'write_stdin';
  readonly args: Readonly<Record<string, unknown>>;
}

/** What run.sh prints for one call: the call as sent ("$SESSION" filled in) and Codex's answer to it. */
export interface CodexAnswer {
  readonly call: { readonly name: string; readonly args: Record<string, unknown> } | undefined;
  /** The model-facing text (a non-string output would be given as its JSON). */
  readonly output: string;
  /** From the fake model server sending the call to it receiving the answer. */
  readonly roundtripMs: number;
}

export interface CodexRun {
  readonly answers: CodexAnswer[];
  /** Where Codex ran (already removed): its path may appear in the answers. */
  readonly workDir: string;
  /** The whole run: fake model server, Codex start-up, the calls, Codex's exit. */
  readonly elapsedMs: number;
}

export interface CodexRunOptions {
  /** Sets CODEX_EXEC_SERVER_URL: Codex runs every command through that exec-server instead of locally. */
  readonly execServerUrl?: string;
  /**
   * Writes $CODEX_HOME/environments.toml naming this exec-server as the only environment, with its bearer token
   * (`auth_bearer_token`): the one way Codex sends a token to an exec-server.
   */
  readonly environment?: { readonly url: string; readonly token: string };
  /** How long Codex may take before it is ended and the run fails; default 120 s. */
  readonly timeoutMs?: number;
  /** Variables to set in Codex's own environment, as the terminal it was started from would. */
  readonly env?: Readonly<Record<string, string>>;
}

const MOCK_START_ATTEMPTS = 3;

/** Starts mock.js on a free port; another port if that one was taken meanwhile. Returns its pid and port. */
async function startMockModelServer(steps: readonly CodexStep[], outDir: string, stderrPath: string) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const stderr = openSync(stderrPath, 'w');
    const child = spawn(process.execPath, [MOCK_MODEL_SERVER], {
      env: { ...directEnv(), STEPS: JSON.stringify(steps), PORT: String(port), OUTDIR: outDir },
      stdio: ['ignore', 'ignore', stderr],
    });
    closeSync(stderr);
    const pid = child.pid;
    if (pid === undefined) throw new Error(`fake model server could not be started: ${tailOf(stderrPath)}`);
    const ready = await pollFor(
      () => (existsSync(join(outDir, 'mock.ready')) ? true : isRunning(pid) ? undefined : false),
      10_000,
      'the fake model server to listen',
    );
    if (ready) return { pid, port };
    if (attempt === MOCK_START_ATTEMPTS) throw new Error(`fake model server did not start: ${tailOf(stderrPath)}`);
  }
}

function runCodex(binary: string, dir: string, port: number, options: CodexRunOptions): Promise<void> {
  // A HOME of its own, without this machine's login profile: root's runs `pyenv rehash`, and two login shells at once
  // (Codex's and another test's) can make it print errors into a command's output.
  const env: NodeJS.ProcessEnv = {
    ...directEnv(),
    HOME: join(dir, 'user'),
    CODEX_HOME: join(dir, 'home'),
    MOCK_API_KEY: 'dummy',
    ...options.env,
  };
  delete env.CODEX_EXEC_SERVER_URL;
  if (options.execServerUrl !== undefined) env.CODEX_EXEC_SERVER_URL = options.execServerUrl;
  const stdout = openSync(join(dir, 'codex.jsonl'), 'w');
  const stderrPath = join(dir, 'codex.stderr');
  const stderr = openSync(stderrPath, 'w');
  const args = ['exec', '--skip-git-repo-check', '--json'];
  args.push('-c', `model_providers.mock.base_url="http://127.0.0.1:${port}/v1"`, 'run the script');
  // stdin is /dev/null: `codex exec` would otherwise wait to read a prompt from it.
  const child = spawn(binary, args, { cwd: join(dir, 'work'), env, stdio: ['ignore', stdout, stderr] });
  closeSync(stdout);
  closeSync(stderr);
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolveRun, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) void endProcess(child.pid);
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`codex could not be started: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolveRun();
      const how = timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${signal ?? `code ${code}`}`;
      reject(new Error(`codex exec ${how}; its stderr: ${tailOf(stderrPath)}`));
    });
  });
}

function writeEnvironmentsToml(home: string, { url, token }: { url: string; token: string }): void {
  const toml = [
    'default = "remote"',
    'include_local = false',
    '[[environments]]',
    'id = "remote"',
    `url = ${JSON.stringify(url)}`,
    `auth_bearer_token = ${JSON.stringify(token)}`,
  ];
  writeFileSync(join(home, 'environments.toml'), `${toml.join('\n')}\n`, { mode: 0o600 });
}

function readJsonLines(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8').trim();
  return text ? text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : [];
}

/** Pairs the calls the fake model server sent with the outputs it got back, in order, as run.sh does. */
function readAnswers(outDir: string): CodexAnswer[] {
  const calls = readJsonLines(join(outDir, 'calls.jsonl')).filter((call) => !call.final);
  return readJsonLines(join(outDir, 'outputs.jsonl')).map((out, i) => {
    const call = calls[i];
    return {
      call: call && { name: String(call.name), args: call.args as Record<string, unknown> },
      output: typeof out.output === 'string' ? out.output : JSON.stringify(out.output),
      roundtripMs: Number(out.roundtrip_ms),
    };
  });
}

/**
 * Runs `steps` through the real Codex CLI (`codex exec --json`, no sandbox, approvals never) in a fresh work folder,
 * with a fresh CODEX_HOME under /var/tmp. Removes its folders and ends the processes it started before returning.
 * Throws when Codex fails or takes longer than `timeoutMs`.
 */
export async function runCodexScript(steps: readonly CodexStep[], options: CodexRunOptions = {}): Promise<CodexRun> {
  const started = performance.now();
  const binary = codexBinary(); // fails early, with the reason, where Codex cannot run
  const dir = makeStateDir('codex-run-');
  try {
    for (const sub of ['home', 'user', 'work', 'out']) mkdirSync(join(dir, sub));
    copyFileSync(CODEX_CONFIG, join(dir, 'home/config.toml'));
    if (options.environment) writeEnvironmentsToml(join(dir, 'home'), options.environment);
    const mock = await startMockModelServer(steps, join(dir, 'out'), join(dir, 'mock.stderr'));
    try {
      await runCodex(binary, dir, mock.port, options);
    } finally {
      await endProcess(mock.pid);
    }
    return {
      answers: readAnswers(join(dir, 'out')),
      workDir: join(dir, 'work'),
      elapsedMs: performance.now() - started,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
