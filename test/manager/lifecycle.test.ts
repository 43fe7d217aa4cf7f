// The session lifecycle contract, on a fake executor (no PTY, no process): every way a session ends — close_session,
// pruning, shutdown(), the program exiting — ends every call waiting on it at once, with the exit and the output
// printed before it; the id is gone afterwards; each session's process is terminated exactly once.
import { describe, expect, it, vi } from 'vitest';
import type { ExecResponse, ManagerOptions, UnifiedExecErrorCode, UnifiedExecManager } from '../../src/index.js';
import { FakeExecutor, type FakeProcess } from '../helpers/fake-executor.js';
import { rejection, useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/** Far longer than any answer here may take: a waiter that sits out its wait fails the bound below. */
const LONG_WAIT_MS = 20_000;
/** How soon a waiting call must answer once its session ends. */
const ANSWER_BOUND_MS = 1_000;
const PRINTED = 'printed before the end\n';

function start(
  options: ManagerOptions = {},
  executor = new FakeExecutor(),
): { manager: UnifiedExecManager; executor: FakeExecutor } {
  let now = 1;
  // A strictly increasing clock, so "least recently used" is never a tie.
  const manager = newManager({ executor, clock: () => now++, returnOn: 'deadline', shellSnapshot: false, ...options });
  return { manager, executor };
}

/** A call in flight whose settling the test can observe without awaiting it. */
function track(reply: Promise<ExecResponse>): { reply: Promise<ExecResponse>; settled: () => boolean } {
  let settled = false;
  void reply.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { reply, settled: () => settled };
}

/** The reply, or a failure (instead of a hang until the test's timeout) when none came within `ms`. */
async function replyWithin(call: ReturnType<typeof track>, ms: number): Promise<ExecResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no reply within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call.reply, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Lets a call that was just made reach its wait. A wait has no outward sign; a few event-loop turns are ample (the
 * call subscribes within a microtask or two), and the test then checks that the call has not answered.
 */
const reachWait = () => new Promise((resolve) => setTimeout(resolve, 20));

async function liveSession(manager: UnifiedExecManager, executor: FakeExecutor, tty: boolean) {
  const started = await manager.execCommand({ command: 'fake program', tty, yieldTimeMs: 250 });
  expect(started).toMatchObject({ state: 'running' });
  return { id: started.sessionId!, proc: executor.processes.at(-1)! };
}

interface Waiting {
  id: number;
  proc: FakeProcess;
  call: ReturnType<typeof track>;
}

interface Waiter {
  name: string;
  tty: boolean;
  /** Makes the call that waits on a session, and resolves once it waits. */
  begin(manager: UnifiedExecManager, executor: FakeExecutor): Promise<Waiting>;
}

const waiters: Waiter[] = [
  {
    name: 'a poll',
    tty: true,
    async begin(manager, executor) {
      const { id, proc } = await liveSession(manager, executor, true);
      const call = track(manager.writeStdin({ sessionId: id, chars: '', yieldTimeMs: LONG_WAIT_MS }));
      await reachWait();
      return { id, proc, call };
    },
  },
  {
    name: 'a pending write',
    tty: true,
    async begin(manager, executor) {
      const { id, proc } = await liveSession(manager, executor, true);
      proc.holdWrites = true;
      const call = track(manager.writeStdin({ sessionId: id, chars: 'typed\n', yieldTimeMs: LONG_WAIT_MS }));
      await vi.waitFor(() => expect(proc.pendingWrites).toBe(1));
      return { id, proc, call };
    },
  },
  {
    name: "exec_command's own wait",
    tty: false,
    async begin(manager, executor) {
      const call = track(manager.execCommand({ command: 'fake program', tty: false, yieldTimeMs: LONG_WAIT_MS }));
      await vi.waitFor(() => expect(manager.listSessions()).toHaveLength(1));
      await reachWait();
      return { id: manager.listSessions()[0]!.sessionId, proc: executor.process(0), call };
    },
  },
];

interface Ending {
  name: string;
  options?: ManagerOptions;
  /** Ends the session `waiting.id`; resolves once whatever it set off has answered. */
  end(manager: UnifiedExecManager, waiting: Waiting): Promise<unknown>;
  exitCode(proc: FakeProcess): number;
  /** What a call on the id answers afterwards. */
  afterwards: UnifiedExecErrorCode;
}

/** What a reply says of a process ended by terminate(): a terminal's death by signal reads 1, as Codex says it. */
const closedCode = (proc: FakeProcess) =>
  proc.tty && proc.exitOnTerminate.signal !== undefined ? 1 : proc.exitOnTerminate.exitCode;

const endings: Ending[] = [
  {
    name: 'close_session',
    async end(manager, { id, proc }) {
      // close_session answers with the exit code once the process is gone.
      await expect(manager.closeSession(id)).resolves.toEqual({
        sessionId: id,
        exitCode: closedCode(proc),
      });
      expect(proc.terminated).toBe(true);
    },
    exitCode: closedCode,
    afterwards: 'UNKNOWN_SESSION',
  },
  {
    name: 'pruning',
    // A cap of 2 protects the one most recently used session (the 8 usual are protected only below the cap): the
    // third session pushes the store over, and the waiting session, used least recently, is pruned.
    options: { maxSessions: 2 },
    end: (manager) =>
      Promise.all([1, 2].map(() => manager.execCommand({ command: 'another program', tty: true, yieldTimeMs: 250 }))),
    exitCode: closedCode,
    afterwards: 'UNKNOWN_SESSION',
  },
  {
    name: 'shutdown()',
    end: (manager) => manager.shutdown(),
    exitCode: closedCode,
    afterwards: 'SHUT_DOWN',
  },
  {
    name: 'the program exiting',
    end: async (_manager, { proc }) => proc.exit(7),
    exitCode: () => 7,
    afterwards: 'UNKNOWN_SESSION',
  },
];

for (const ending of endings) {
  describe(`${ending.name} while a call waits on the session`, () => {
    for (const waiter of waiters) {
      it(`ends ${waiter.name} at once with the exit and the output printed before`, async ({ annotate }) => {
        const { manager, executor } = start(ending.options);
        const waiting = await waiter.begin(manager, executor);
        waiting.proc.print(PRINTED);
        expect(waiting.call.settled()).toBe(false);

        const endedAt = performance.now();
        const ended = ending.end(manager, waiting);
        const reply = await waiting.call.reply;
        const answeredMs = performance.now() - endedAt;
        await ended;
        await annotate(`${waiter.name} answered ${answeredMs.toFixed(0)} ms after ${ending.name} began`);

        expect(answeredMs).toBeLessThan(ANSWER_BOUND_MS);
        expect(reply).toMatchObject({ state: 'exited', exitCode: ending.exitCode(waiting.proc), output: PRINTED });
        expect(reply).not.toHaveProperty('sessionId');
        await rejection(manager.writeStdin({ sessionId: waiting.id, chars: '' }), ending.afterwards);
        expect(manager.listSessions().map((s) => s.sessionId)).not.toContain(waiting.id);
        // A write cut short by the end was abandoned, never delivered.
        expect(waiting.proc.written).toEqual([]);

        await manager.shutdown();
        expect(executor.processes.map((p) => p.terminateCalls)).toEqual(executor.processes.map(() => 1));
      });
    }
  });
}

describe('ExecSession lifecycle', () => {
  it('answers two concurrent polls on one session at close, both with the exit', async () => {
    const { manager, executor } = start();
    const { id, proc } = await liveSession(manager, executor, true);
    const polls = [1, 2].map(() => track(manager.writeStdin({ sessionId: id, chars: '', yieldTimeMs: LONG_WAIT_MS })));
    await reachWait();
    proc.print(PRINTED);
    expect(polls.some((p) => p.settled())).toBe(false);

    const closedAt = performance.now();
    await manager.closeSession(id);
    const replies = await Promise.all(polls.map((p) => p.reply));
    expect(performance.now() - closedAt).toBeLessThan(ANSWER_BOUND_MS);

    for (const reply of replies) {
      expect(reply).toMatchObject({ state: 'exited', exitCode: 1, signal: 'SIGHUP' });
      expect(reply).not.toHaveProperty('sessionId');
    }
    // The output goes to exactly one of them: the one that waited first.
    expect(replies.map((r) => r.output)).toEqual([PRINTED, '']);
    expect(proc.terminateCalls).toBe(1);
  });

  it('types nothing for a write queued behind a pending one when the session closes', async () => {
    const { manager, executor } = start();
    const { id, proc } = await liveSession(manager, executor, true);
    proc.holdWrites = true;
    const writes = ['first\n', 'second\n'].map((chars) =>
      track(manager.writeStdin({ sessionId: id, chars, yieldTimeMs: LONG_WAIT_MS })),
    );
    await vi.waitFor(() => expect(proc.pendingWrites).toBe(1));

    await manager.closeSession(id);
    const replies = await Promise.all(writes.map((w) => w.reply));
    expect(replies.map((r) => r.state)).toEqual(['exited', 'exited']);
    expect(replies.map((r) => r.exitCode)).toEqual([1, 1]);
    expect(proc.written).toEqual([]);
  });

  it('abandons a write the backend never settles when the session closes', async () => {
    const { manager, executor } = start();
    const { id, proc } = await liveSession(manager, executor, true);
    proc.holdWrites = true;
    proc.failWritesOnEnd = false;
    const write = track(manager.writeStdin({ sessionId: id, chars: 'typed\n', yieldTimeMs: LONG_WAIT_MS }));
    await vi.waitFor(() => expect(proc.pendingWrites).toBe(1));
    proc.print(PRINTED);

    await manager.closeSession(id);
    const reply = await replyWithin(write, ANSWER_BOUND_MS);
    expect(reply).toMatchObject({ state: 'exited', exitCode: 1, signal: 'SIGHUP', output: PRINTED });
    expect(proc.pendingWrites).toBe(1);
  });

  it('no longer lists a session once close_session is called, before its process has ended', async () => {
    const { manager, executor } = start();
    const kept = await liveSession(manager, executor, true);
    const closed = await liveSession(manager, executor, false);
    closed.proc.terminateMs = 200;

    const closing = manager.closeSession(closed.id);
    expect(manager.listSessions().map((s) => s.sessionId)).toEqual([kept.id]);
    expect(closed.proc.terminated).toBe(false);
    await expect(closing).resolves.toEqual({ sessionId: closed.id, exitCode: 143 });
    expect(manager.listSessions().map((s) => s.sessionId)).toEqual([kept.id]);
  });

  it('closes an exited session whose exit was not read yet with its own exit code', async () => {
    const { manager, executor } = start();
    const { id, proc } = await liveSession(manager, executor, true);
    proc.exit(3);
    await expect(manager.closeSession(id)).resolves.toEqual({ sessionId: id, exitCode: 3 });
    expect(proc.terminateCalls).toBe(1);
    await rejection(manager.writeStdin({ sessionId: id, chars: '' }), 'UNKNOWN_SESSION');
  });

  // Calls within one clock tick tie on lastUsedMs: the tie must not make the session just started the one to go.
  it('prunes the oldest of sessions used in the same millisecond, never the one just started', async () => {
    const { manager } = start({ maxSessions: 2, clock: () => 1_000 });
    const replies = [];
    for (const cmd of ['first', 'second', 'third']) {
      replies.push(await manager.execCommand({ command: cmd, tty: true, yieldTimeMs: 250 }));
    }
    expect(replies.map((r) => r.state)).toEqual(['running', 'running', 'running']);
    expect(manager.listSessions().map((s) => s.command)).toEqual(['second', 'third']);
  });

  it('lets shutdown() resolve only once every termination has finished, earlier closes included', async () => {
    const { manager, executor } = start({}, new FakeExecutor({ terminateMs: 200 }));
    const sessions = [];
    for (const tty of [true, false, true]) sessions.push(await liveSession(manager, executor, tty));
    const poll = track(manager.writeStdin({ sessionId: sessions[2]!.id, chars: '', yieldTimeMs: LONG_WAIT_MS }));
    await reachWait();
    // Closed just before, still terminating when shutdown() starts.
    const closing = manager.closeSession(sessions[0]!.id);

    await manager.shutdown();
    expect(executor.processes.map((p) => p.terminated)).toEqual([true, true, true]);
    expect(executor.processes.map((p) => p.terminateCalls)).toEqual([1, 1, 1]);
    await expect(closing).resolves.toMatchObject({ exitCode: 1 });
    // The poll answers with the termination, not at its deadline.
    await expect(replyWithin(poll, ANSWER_BOUND_MS)).resolves.toMatchObject({
      state: 'exited',
      exitCode: 1,
      signal: 'SIGHUP',
    });
    await rejection(manager.execCommand({ command: 'too late' }), 'SHUT_DOWN');
  });
});
