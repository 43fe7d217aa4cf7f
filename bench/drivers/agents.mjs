/**
 * The OpenAI Agents SDK's sandbox sessions, as its shell tools call them (`session.execCommand(args)` and
 * `session.writeStdin(args)`, each answering with the text the model reads): ours (`UnifiedExecSandboxClient`,
 * dist/lib/openai-agents.js) or the SDK's own `UnixLocalSandboxClient` (`client: 'unix-local'`), in the same run. The
 * runner and the model are left out: they cost both alike. Yields are the SDK tools' defaults (10 s for exec_command,
 * 250 ms for write_stdin) unless a figure needs a longer one.
 */
import { execFileSync } from 'node:child_process';
import { UnixLocalSandboxClient } from '@openai/agents/sandbox/local';
import { UnifiedExecSandboxClient } from '../../dist/lib/openai-agents.js';
import { trackStop } from '../lib/cleanup.mjs';
import { idle } from '../lib/stats.mjs';
import { sampleRss } from '../lib/proc.mjs';
import { REPLS, SHORT_COMMAND, floodCommand } from '../lib/workloads.mjs';
import { loadScenarioSuite } from '../lib/scenarios.mjs';

const EXEC_YIELD_MS = 10_000;
const WRITE_YIELD_MS = 250;

/** A fresh sandbox session of `client`'s kind, deleted (its processes ended, its workspace removed) at cleanup. */
async function openSession(client) {
  const sandbox =
    client === 'unix-local'
      ? new UnixLocalSandboxClient()
      : // Unsandboxed, as UnixLocal's commands are: the rows compare the sessions, not the sandbox's cost.
        new UnifiedExecSandboxClient({ defaultShell: '/bin/bash', sandbox: 'danger-full-access' });
  const session = await sandbox.create();
  let deleted;
  const remove = () => (deleted ??= session.delete());
  trackStop(remove);
  return { session, remove };
}

/** What the model reads off a reply: the session id while it runs, the exit code once it exited, the output. */
function readReply(text) {
  const at = text.indexOf('\nOutput:\n');
  const header = at < 0 ? text : text.slice(0, at);
  const field = (pattern) => pattern.exec(header)?.[1];
  const sessionId = field(/^Process running with session ID (\d+)$/m);
  const exitCode = field(/^Process exited with code (-?\d+)$/m);
  const tokens = field(/^Original token count: (\d+)$/m);
  return {
    sessionId: sessionId === undefined ? undefined : Number(sessionId),
    exitCode: exitCode === undefined ? undefined : Number(exitCode),
    tokens: tokens === undefined ? undefined : Number(tokens),
    output: at < 0 ? '' : text.slice(at + '\nOutput:\n'.length),
  };
}

/** Both clients run a command line in bash, as the other drivers do. */
const bash = { shell: '/bin/bash', login: false };

/** Opens `cmd` in a terminal; answers the reply (a session that still runs). */
async function openTty(session, cmd, yieldTimeMs) {
  const reply = readReply(await session.execCommand({ cmd, ...bash, tty: true, yieldTimeMs }));
  if (reply.sessionId === undefined) throw new Error(`\`${cmd}\` did not keep running: ${reply.output.slice(-300)}`);
  return reply;
}

/** A line of output that is exactly `reply`. */
const replyLine = (reply) => new RegExp(`(^|\\n)${reply}\\r?\\n`);

export async function roundTrip({ client, repl: name, iterations, warmup }) {
  const repl = REPLS[name];
  const { session, remove } = await openSession(client);
  // UnixLocal answers only at its yield, however soon the REPL is at its prompt: a short one does for the start.
  const opened = await openTty(session, repl.cmd, client === 'unix-local' ? 1_000 : EXEC_YIELD_MS);
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    const text = await session.writeStdin({
      sessionId: opened.sessionId,
      chars: `${repl.input}\r`,
      yieldTimeMs: WRITE_YIELD_MS,
    });
    if (i >= warmup) samples.push(performance.now() - t0);
    const { output } = readReply(text);
    if (!replyLine(repl.reply).test(output) || !output.endsWith(repl.prompt)) wrong++;
  }
  await remove();
  return { samples, wrong };
}

export async function shortExec({ client, iterations, warmup, tty, gapMs = 0 }) {
  const { session, remove } = await openSession(client);
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    await idle(gapMs);
    const t0 = performance.now();
    const text = await session.execCommand({ cmd: SHORT_COMMAND, ...bash, tty, yieldTimeMs: EXEC_YIELD_MS });
    if (i >= warmup) samples.push(performance.now() - t0);
    const reply = readReply(text);
    if (reply.exitCode !== 0 || !reply.output.includes('hi')) wrong++;
  }
  await remove();
  return { samples, wrong };
}

/**
 * Floods `bytes` through a terminal to the exit: exec_command, then empty polls, each with the longest yield Codex
 * allows (30 s; UnixLocal takes it as given). Bytes received from the replies' token counts (ours; UnixLocal counts
 * only a truncated reply's, and keeps the last 1 MiB between calls).
 */
export async function flood({ client, bytes }) {
  const { session, remove } = await openSession(client);
  const rssBefore = process.memoryUsage.rss();
  const rss = sampleRss(20);
  const t0 = performance.now();
  let reply = readReply(
    await session.execCommand({ cmd: floodCommand(bytes), ...bash, tty: true, yieldTimeMs: 30_000 }),
  );
  let received = reply.tokens * 4;
  while (reply.exitCode === undefined) {
    reply = readReply(await session.writeStdin({ sessionId: reply.sessionId, chars: '', yieldTimeMs: 30_000 }));
    received += reply.tokens * 4;
  }
  const ms = performance.now() - t0;
  const peakRss = rss.stop();
  await remove();
  return { ms, bytes, ...(client === 'unix-local' ? {} : { received }), exitCode: reply.exitCode, rssBefore, peakRss };
}

/**
 * Opens `count` `bash -i` terminals at once in one sandbox session, until every prompt. Ours answers at each prompt;
 * UnixLocal at its yield, so it is given 500 ms (as the deadline rule's row of figure 4): `notWaiting` counts the
 * replies without the prompt.
 */
export async function openMany({ client, count, repeat }) {
  const samples = [];
  const teardown = [];
  let notWaiting = 0;
  for (let rep = 0; rep < repeat; rep++) {
    const { session, remove } = await openSession(client);
    const yieldMs = client === 'unix-local' ? 500 : EXEC_YIELD_MS;
    const t0 = performance.now();
    const replies = await Promise.all(Array.from({ length: count }, () => openTty(session, REPLS.bash.cmd, yieldMs)));
    samples.push(performance.now() - t0);
    notWaiting += replies.filter((r) => !r.output.endsWith(REPLS.bash.prompt)).length;
    const t1 = performance.now();
    await remove();
    teardown.push(performance.now() - t1);
  }
  return { samples, teardown, notWaiting, mode: `concurrent: ${count} execCommand calls at once in one session` };
}

/** Whether `program` is on PATH. */
function onPath(program) {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `pieces` in `text`, in order. */
function inOrder(text, pieces) {
  let at = 0;
  for (const piece of pieces) {
    const found = text.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return true;
}

/**
 * The input-wait scenarios in which the program ends up waiting for input (test/input-wait/scenarios.ts), through a
 * sandbox session: each in a fresh one, its setup typed in turn, then the measured call with its yield capped at
 * `capMs` past any sleep of the program's own (the same caps for both clients, so UnixLocal, which answers only at the
 * yield, does not take 10 s a call).
 * Answered: the reply holds what the scenario expects and came `marginMs` or more before that yield.
 */
export async function scenarios({ client, capMs, stepCapMs, marginMs }) {
  const { scenarios: all } = await loadScenarioSuite();
  const picked = all.filter((s) => s.expectState === 'waiting_for_input' && !s.sockets);
  const results = [];
  for (const scenario of picked) {
    const missing = (scenario.needs ?? []).filter((program) => !onPath(program));
    if (missing.length) {
      results.push({ name: scenario.name, skipped: `needs ${missing.join(', ')}` });
      continue;
    }
    const { session, remove } = await openSession(client);
    // A program that answers only after its own sleep (minWallMs) gets the cap on top of it.
    const measuredYield = Math.min(scenario.yieldTimeMs, (scenario.minWallMs ?? 0) + capMs);
    const maxOutputTokens = scenario.maxOutputTokens;
    const t0 = performance.now();
    let text = await session.execCommand({
      cmd: scenario.cmd,
      ...bash,
      tty: true,
      yieldTimeMs:
        scenario.input === undefined ? measuredYield : Math.min(scenario.startYieldTimeMs ?? 10_000, stepCapMs),
    });
    let wallMs = performance.now() - t0;
    const { sessionId } = readReply(text);
    if (scenario.input !== undefined && sessionId !== undefined) {
      for (const step of scenario.setup ?? []) {
        const { chars, yieldTimeMs = 10_000 } = typeof step === 'string' ? { chars: step } : step;
        await session.writeStdin({ sessionId, chars, yieldTimeMs: Math.min(yieldTimeMs, stepCapMs) });
      }
      const t1 = performance.now();
      text = await session.writeStdin({
        sessionId,
        chars: scenario.input,
        yieldTimeMs: measuredYield,
        maxOutputTokens,
      });
      wallMs = performance.now() - t1;
    }
    const reply = readReply(text);
    const complete = reply.sessionId !== undefined && inOrder(reply.output, scenario.expectOutput);
    results.push({ name: scenario.name, complete, early: wallMs <= measuredYield - marginMs, wallMs, measuredYield });
    await remove();
  }
  return { results };
}
