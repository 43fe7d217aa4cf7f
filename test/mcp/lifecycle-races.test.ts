// The session lifecycle end to end: the real stdio server (`node dist/cli/index.js mcp`), the MCP SDK's own client,
// real processes. A call waiting on a session — a poll, exec_command's own wait — answers at once with the exit when
// another call closes the session, when pruning drops it, or when the client goes away; the id is gone afterwards.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { managerSettingsSchema, type SettingMeta } from '../../src/manager/settings.js';
import type { ExecResult, SessionListResult } from '../../src/tools/output-schemas.js';
import {
  childrenOf,
  identify,
  isRunning,
  killIfRunning,
  startTimeOf,
  survives,
  textOf,
  type CallResult,
  type ProcessIdentity,
} from '../reliability/harness.js';
import { mcpTransport } from './cli-process.js';

/** A poll asks for 20 s; answering within this after its session ended is "at once" on a busy 2-core machine. */
const ANSWER_BOUND_MS = 2_000;
const POLL_MS = 20_000;
/** The timing: close_session comes from a concurrent call this long after the poll was sent. */
const CLOSE_AFTER_MS = 300;
/** A lost reply still fails the test, just not by the SDK's 60 s default. */
const CALL_TIMEOUT_MS = 120_000;
const PATIENT = { timeout: 10_000, interval: 20 } as const;

/** The CLI flag of the manager's `maxSessions` setting, read from the settings table the CLI is built from. */
const MAX_SESSIONS_FLAG = `--${(managerSettingsSchema.shape.maxSessions.meta() as SettingMeta).flag}`;

interface McpServer {
  client: Client;
  pid: number;
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
}

const servers: McpServer[] = [];
/** Every process a test caused to exist, for cleanup should the server have failed to end it. */
const programs: ProcessIdentity[] = [];
const scratch: string[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    await server.client.close().catch(() => undefined);
    const identity = { pid: server.pid, start: startTimeOf(server.pid) ?? '' };
    await vi.waitFor(() => expect(isRunning(server.pid)).toBe(false), PATIENT).catch(() => killIfRunning(identity));
  }
  for (const program of programs.splice(0)) killIfRunning(program);
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startMcp(args: string[] = []): Promise<McpServer> {
  // The races are the engine's: read the structured fields.
  const transport = mcpTransport(['--structured-output', ...args]);
  const client = new Client({ name: 'lifecycle-races', version: '1.0.0' });
  await client.connect(transport);
  if (transport.pid === null) throw new Error('the server has no pid');
  const server: McpServer = {
    client,
    pid: transport.pid,
    call: (name, callArgs) => client.callTool({ name, arguments: callArgs }, undefined, { timeout: CALL_TIMEOUT_MS }),
  };
  servers.push(server);
  return server;
}

function succeeded<T>(result: CallResult): T {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** A call in flight, with when it answered. */
function track(reply: Promise<CallResult>): { reply: Promise<CallResult>; answeredAt: () => number | undefined } {
  let answeredAt: number | undefined;
  const done = () => (answeredAt = performance.now());
  void reply.then(done, done);
  return { reply, answeredAt: () => answeredAt };
}

/** Starts `cmd` (no login shell: login profiles are slow here) and answers its session id; it must still run. */
async function startSession(server: McpServer, cmd: string, tty: boolean): Promise<number> {
  const started = succeeded<ExecResult>(
    await server.call('exec_command', { cmd, login: false, tty, shell: '/bin/bash', yield_time_ms: 250 }),
  );
  expect(started.session_id, `\`${cmd}\` ended early: ${JSON.stringify(started)}`).toBeTypeOf('number');
  return started.session_id!;
}

/** The session's program and its children as the kernel sees them, registered for cleanup. */
async function processesOf(server: McpServer, sessionId: number): Promise<ProcessIdentity[]> {
  const { sessions } = succeeded<SessionListResult>(await server.call('list_sessions', {}));
  const session = sessions.find((s) => s.session_id === sessionId);
  if (!session) throw new Error(`session ${sessionId} is not listed`);
  // A child may end between the listing and the look (a shell loop's `sleep 0.02`): only the leader must be there.
  const children = childrenOf(session.pid!).flatMap((pid) => {
    const start = startTimeOf(pid);
    return start === undefined ? [] : [{ pid, start }];
  });
  const tree = [identify(session.pid!), ...children];
  programs.push(...tree);
  return tree;
}

const poll = (server: McpServer, sessionId: number) =>
  track(server.call('write_stdin', { session_id: sessionId, chars: '', yield_time_ms: POLL_MS }));

/** A reply that reports the exit: the compat line, `exit_code`, and no `session_id`. */
function expectExitReply(result: CallResult, exitCode: number): ExecResult {
  const structured = succeeded<ExecResult>(result);
  expect(textOf(result)).toContain(`\nProcess exited with code ${exitCode}\n`);
  expect(textOf(result)).not.toContain('Process running');
  expect(structured).toMatchObject({ exit_code: exitCode, state: 'exited' });
  expect(structured).not.toHaveProperty('session_id');
  return structured;
}

async function expectUnknown(server: McpServer, sessionId: number): Promise<void> {
  const after = await server.call('write_stdin', { session_id: sessionId, chars: '' });
  expect(after.isError).toBe(true);
  expect(textOf(after)).toBe(`write_stdin failed: Unknown process id ${sessionId}`);
}

const allGone = (tree: ProcessIdentity[]) => expect(tree.filter(survives).map((p) => p.pid)).toEqual([]);

/**
 * The exit a closed session reports: a PTY's program gets SIGHUP, a pipes program SIGTERM (128 + 15); a terminal's
 * death by signal reads 1, as Codex reports it.
 */
const closedExitCode = (tty: boolean) => (tty ? 1 : 128 + 15);

describe('unified-exec mcp: a waiting call ends with its session', () => {
  for (const tty of [true, false]) {
    it(`answers a poll with the exit when close_session ends its session (${tty ? 'tty' : 'pipes'})`, async ({
      annotate,
    }) => {
      const server = await startMcp();
      const sessionId = await startSession(server, 'sleep 600', tty);
      const tree = await processesOf(server, sessionId);

      const waiting = poll(server, sessionId);
      await new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_MS));
      expect(waiting.answeredAt()).toBeUndefined();

      const closeSentAt = performance.now();
      const closed = await server.call('close_session', { session_id: sessionId });
      const closeMs = performance.now() - closeSentAt;
      const pollResult = await waiting.reply;
      const pollMs = waiting.answeredAt()! - closeSentAt;
      await annotate(`close answered in ${closeMs.toFixed(0)} ms; poll answered ${pollMs.toFixed(0)} ms after it`);

      const exitCode = closedExitCode(tty);
      expect(succeeded(closed)).toEqual({ session_id: sessionId, exit_code: exitCode });
      expect(pollMs).toBeLessThan(ANSWER_BOUND_MS);
      expectExitReply(pollResult, exitCode);
      await expectUnknown(server, sessionId);
      await vi.waitFor(() => allGone(tree), PATIENT);
    });
  }

  it('answers a write_stdin whose input the program never reads when close_session ends its session', async ({
    annotate,
  }) => {
    const server = await startMcp();
    const sessionId = await startSession(server, 'sleep 600', true);
    const tree = await processesOf(server, sessionId);
    // sleep never reads its terminal: once the terminal's input queue is full (a few KiB, then the pty's 64 KiB),
    // the rest of this write stays pending.
    const chars = `${'x'.repeat(99)}\n`.repeat(4 * 1024);
    const writing = track(server.call('write_stdin', { session_id: sessionId, chars, yield_time_ms: POLL_MS }));
    await new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_MS));
    expect(writing.answeredAt()).toBeUndefined();

    const closeSentAt = performance.now();
    await server.call('close_session', { session_id: sessionId });
    const result = await writing.reply;
    const writeMs = writing.answeredAt()! - closeSentAt;
    await annotate(`write_stdin answered ${writeMs.toFixed(0)} ms after the close was sent`);

    expect(writeMs).toBeLessThan(ANSWER_BOUND_MS);
    const reply = expectExitReply(result, closedExitCode(true));
    // The terminal echoed what it took in before the close; far from all of it.
    expect(reply.output).toContain('x'.repeat(99));
    expect(reply.original_token_count).toBeLessThan(chars.length / 4 / 2);
    await expectUnknown(server, sessionId);
    await vi.waitFor(() => allGone(tree), PATIENT);
  });

  it('keeps what the program printed before the close in the answer of the waiting poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ue-lifecycle-'));
    scratch.push(dir);
    const [go, printed] = [join(dir, 'go'), join(dir, 'printed')];
    const server = await startMcp();
    // Prints only when told (after its exec_command answered), and says when it has.
    const sessionId = await startSession(
      server,
      `until [ -e ${go} ]; do sleep 0.02; done; echo printed-before-close; touch ${printed}; exec sleep 600`,
      true,
    );
    await processesOf(server, sessionId);

    const waiting = poll(server, sessionId);
    writeFileSync(go, '');
    await vi.waitFor(() => expect(existsSync(printed)).toBe(true), PATIENT);
    expect(waiting.answeredAt()).toBeUndefined();
    const closeSentAt = performance.now();
    await server.call('close_session', { session_id: sessionId });

    const reply = expectExitReply(await waiting.reply, closedExitCode(true));
    expect(waiting.answeredAt()! - closeSentAt).toBeLessThan(ANSWER_BOUND_MS);
    expect(reply.output).toContain('printed-before-close');
  });

  it("answers exec_command's own wait with the exit when close_session ends its session", async ({ annotate }) => {
    const server = await startMcp();
    const exec = track(
      server.call('exec_command', { cmd: 'sleep 600', login: false, shell: '/bin/bash', yield_time_ms: POLL_MS }),
    );
    // The session is listed while its exec_command still waits.
    let sessionId = 0;
    await vi.waitFor(async () => {
      const { sessions } = succeeded<SessionListResult>(await server.call('list_sessions', {}));
      expect(sessions).toHaveLength(1);
      sessionId = sessions[0]!.session_id;
    }, PATIENT);
    const tree = await processesOf(server, sessionId);
    expect(exec.answeredAt()).toBeUndefined();

    const closeSentAt = performance.now();
    await server.call('close_session', { session_id: sessionId });
    const result = await exec.reply;
    const execMs = exec.answeredAt()! - closeSentAt;
    await annotate(`exec_command answered ${execMs.toFixed(0)} ms after the close was sent`);

    expect(execMs).toBeLessThan(ANSWER_BOUND_MS);
    expectExitReply(result, closedExitCode(false));
    await expectUnknown(server, sessionId);
    await vi.waitFor(() => allGone(tree), PATIENT);
  });

  it('answers two concurrent polls on one session when it is closed', async () => {
    const server = await startMcp();
    const sessionId = await startSession(server, 'sleep 600', true);
    await processesOf(server, sessionId);
    const polls = [poll(server, sessionId), poll(server, sessionId)];
    await new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_MS));

    const closeSentAt = performance.now();
    await server.call('close_session', { session_id: sessionId });
    const results = await Promise.all(polls.map((p) => p.reply));
    for (const p of polls) expect(p.answeredAt()! - closeSentAt).toBeLessThan(ANSWER_BOUND_MS);
    for (const result of results) expectExitReply(result, closedExitCode(true));
  });

  it('answers a poll with the exit when its session is pruned', async ({ annotate }) => {
    // A cap of 2 protects the one most recently used session; the polled one, used least recently, goes first.
    const server = await startMcp([MAX_SESSIONS_FLAG, '2']);
    const polledId = await startSession(server, 'sleep 600', true);
    const tree = await processesOf(server, polledId);
    const waiting = poll(server, polledId);
    await new Promise((resolve) => setTimeout(resolve, CLOSE_AFTER_MS));

    const listed = async () =>
      succeeded<SessionListResult>(await server.call('list_sessions', {})).sessions.map((s) => s.session_id);
    let pruneSentAt = 0;
    for (let opened = 0; (await listed()).includes(polledId); opened++) {
      expect(opened, 'sessions opened without pruning the polled one').toBeLessThan(3);
      expect(waiting.answeredAt()).toBeUndefined();
      pruneSentAt = performance.now();
      await processesOf(server, await startSession(server, 'sleep 600', false));
    }
    await waiting.reply;
    const pollMs = waiting.answeredAt()! - pruneSentAt;
    await annotate(`poll answered ${pollMs.toFixed(0)} ms after the exec_command that pruned its session was sent`);

    expect(pollMs).toBeLessThan(ANSWER_BOUND_MS);
    expectExitReply(await waiting.reply, closedExitCode(true));
    await expectUnknown(server, polledId);
    await vi.waitFor(() => allGone(tree), PATIENT);
  });

  it('ends the processes of sessions with waiting calls when the client disconnects', async () => {
    const server = await startMcp();
    const polledId = await startSession(server, 'sleep 600', true);
    const polled = await processesOf(server, polledId);
    const waiting = poll(server, polledId);
    const exec = track(
      server.call('exec_command', { cmd: 'sleep 600', login: false, shell: '/bin/bash', yield_time_ms: POLL_MS }),
    );
    let execTree: ProcessIdentity[] = [];
    await vi.waitFor(async () => {
      const { sessions } = succeeded<SessionListResult>(await server.call('list_sessions', {}));
      const other = sessions.find((s) => s.session_id !== polledId);
      expect(other).toBeDefined();
      execTree = await processesOf(server, other!.session_id);
    }, PATIENT);
    expect([waiting.answeredAt(), exec.answeredAt()]).toEqual([undefined, undefined]);

    await server.client.close();
    // The server ends every session, which answers the waiting calls with the exit; whether an answer still reaches
    // the client while its transport closes is up to the SDK, but none may report a running session.
    for (const outcome of await Promise.allSettled([waiting.reply, exec.reply])) {
      if (outcome.status === 'fulfilled') expect(succeeded<ExecResult>(outcome.value).state).toBe('exited');
    }
    await vi.waitFor(() => allGone([...polled, ...execTree]), PATIENT);
    await vi.waitFor(() => expect(isRunning(server.pid)).toBe(false), PATIENT);
  });
});
