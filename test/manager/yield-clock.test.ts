// When a new session's first yield starts: once its process has started, as Codex's does. Starting a process on a
// loaded machine (fork, exec, a sandbox, a login snapshot) can take longer than the whole 250 ms floor; a yield that
// counted it would answer "running" for a command that exits at once.
import { describe, expect, it } from 'vitest';
import type { CommandRequest, StartedCommand } from '../../src/index.js';
import { MIN_YIELD_TIME_MS } from '../../src/manager/constants.js';
import { delay } from '../../src/util/delay.js';
import { FakeExecutor } from '../helpers/fake-executor.js';
import { useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/** Longer than the yield floor: a start this slow used to leave the command no yield at all. */
const SLOW_START_MS = MIN_YIELD_TIME_MS + 150;

/** An executor whose start takes SLOW_START_MS; each process exits `exitAfterMs` after it started, if given. */
class SlowStartExecutor extends FakeExecutor {
  /** performance.now() when each start resolved. */
  readonly startedAt: number[] = [];

  constructor(private readonly exitAfterMs?: number) {
    super();
  }

  override async start(request: CommandRequest): Promise<StartedCommand> {
    await delay(SLOW_START_MS);
    const started = await super.start(request);
    const proc = this.processes.at(-1)!;
    // Set before the manager sets its deadline timer, and shorter: Node runs overdue timers in order of expiry, so
    // the exit comes first however late a loaded machine runs them.
    if (this.exitAfterMs !== undefined) setTimeout(() => proc.exit(0), this.exitAfterMs);
    this.startedAt.push(performance.now());
    return started;
  }
}

describe('the first yield of exec_command', () => {
  it('sees a quick exit after a start slower than the whole yield', async () => {
    const manager = newManager({ executor: new SlowStartExecutor(50), returnOn: 'deadline', shellSnapshot: false });
    const reply = await manager.execCommand({ command: 'quick', yieldTimeMs: 10 });
    expect(reply).toMatchObject({ state: 'exited', exitCode: 0 });
  });

  it('counts its yield from the start of the process, and its wall time from the call', async () => {
    const executor = new SlowStartExecutor();
    const manager = newManager({ executor, returnOn: 'deadline', shellSnapshot: false });
    const called = performance.now();
    const reply = await manager.execCommand({ command: 'runs on', yieldTimeMs: 10 });
    const answered = performance.now();
    expect(reply.state).toBe('running');
    // Lower bounds only: load can make an answer later, never earlier.
    expect(answered - executor.startedAt[0]!).toBeGreaterThanOrEqual(MIN_YIELD_TIME_MS - 1);
    expect(reply.wallTimeSeconds * 1000).toBeGreaterThanOrEqual(SLOW_START_MS + MIN_YIELD_TIME_MS - 1);
    expect(reply.wallTimeSeconds * 1000).toBeLessThanOrEqual(answered - called);
  });

  it('counts in its yield and its wall time what the call waited before the manager had it (a server loading)', async () => {
    const executor = new FakeExecutor();
    const manager = newManager({ executor, returnOn: 'deadline', shellSnapshot: false });
    const called = performance.now();
    const reply = await manager.execCommand({ command: 'runs on', yieldTimeMs: 1_000 }, { waitedMs: 600 });
    const answered = performance.now();
    expect(reply.state).toBe('running');
    // 400 ms of its yield were left: answered well before the whole of it (load makes answers later, not earlier).
    expect(answered - called).toBeGreaterThanOrEqual(400 - 1);
    expect(answered - called).toBeLessThan(1_000);
    expect(reply.wallTimeSeconds * 1000).toBeGreaterThanOrEqual(1_000 - 1);
    // A login snapshot being taken is waited for only as long as the rest of the yield allows.
    expect(executor.requests[0]!.snapshotWaitMs).toBe(1_000 - 30 - 600);
    // Without it, the whole yield.
    const t = performance.now();
    await manager.execCommand({ command: 'runs on', yieldTimeMs: 1_000 });
    expect(performance.now() - t).toBeGreaterThanOrEqual(1_000 - 1);
    expect(executor.requests[1]!.snapshotWaitMs).toBe(1_000 - 30);
  });
});
