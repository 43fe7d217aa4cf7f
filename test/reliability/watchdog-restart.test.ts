import { afterAll, describe, expect, it } from 'vitest';
import {
  BACKGROUND_HOLDER,
  SOAK,
  childrenOf,
  commandLineOf,
  identify,
  killIfRunning,
  startServer,
  survives,
  timeUntil,
  type ProcessIdentity,
  type ServerUnderTest,
} from './harness.js';

const HOLDER = BACKGROUND_HOLDER;
/** Rounds of: open sessions, SIGKILL the watchdog, wait for its replacement. 4 uses up the start budget exactly. */
const WATCHDOG_KILLS = SOAK ? 4 : 1;
/** Soak: 5 rounds of 12 sessions stay under the 64-session cap, which would prune some. */
const SESSIONS_PER_KIND_PER_ROUND = SOAK ? 6 : 2;
const REPLACED_WITHIN_MS = 5_000;

function watchdogsOf(server: ServerUnderTest): number[] {
  return childrenOf(server.pid).filter((pid) => commandLineOf(pid).includes('watchdog.mjs'));
}

describe('SIGKILL of the watchdog, then of the stdio server', () => {
  let server: ServerUnderTest | undefined;
  const doomed: ProcessIdentity[] = [];
  const replacedInMs: number[] = [];

  afterAll(async () => {
    // Only if the watchdog failed: end what this test made, by pid.
    for (const target of doomed) killIfRunning(target);
    await server?.close();
  });

  /** Opens tty and pipe sessions with background grandchildren; everything they started joins `doomed`. */
  async function openSessions(): Promise<void> {
    const kinds = [true, false].flatMap((tty) => Array<boolean>(SESSIONS_PER_KIND_PER_ROUND).fill(tty));
    const replies = await Promise.all(
      kinds.map((tty) => server!.exec({ cmd: HOLDER, tty, login: false, yield_time_ms: 1_500 })),
    );
    expect(replies.every((reply) => reply.session_id !== undefined)).toBe(true);
    const ids = new Set(replies.map((reply) => reply.session_id));
    const leaders = (await server!.list()).filter((s) => ids.has(s.session_id)).map((s) => s.pid!);
    const background = replies.flatMap((reply) => [...reply.output.matchAll(/BG=(\d+)/g)].map((m) => Number(m[1])));
    expect(background).toHaveLength(kinds.length * 4);
    for (const pid of [...leaders, ...background]) doomed.push(identify(pid));
  }

  it('starts a new watchdog that knows every live session, so the server SIGKILL leaks nothing', async () => {
    server = await startServer('watchdog-restart');
    for (let round = 0; round < WATCHDOG_KILLS; round++) {
      await openSessions();
      const before = watchdogsOf(server);
      expect(before).toHaveLength(1);
      const old = identify(before[0]!);
      process.kill(old.pid, 'SIGKILL');
      // Not replaced in time is recorded, not thrown: the leak it causes is what the assertions below show.
      const replaced = () => watchdogsOf(server!).some((pid) => pid !== old.pid);
      replacedInMs.push(await timeUntil(replaced, REPLACED_WITHIN_MS).catch(() => Number.NaN));
    }
    // Sessions opened after the last restart are registered with the new watchdog the ordinary way.
    await openSessions();
    expect(await server.list()).toHaveLength(doomed.length / 5);
    const watchdogs = watchdogsOf(server).map(identify);

    process.kill(server.pid, 'SIGKILL');
    const elapsedMs = await timeUntil(() => doomed.every((p) => !survives(p)), 2_000).catch(() => Number.NaN);
    const alive = doomed.filter(survives);
    console.log(
      `watchdog-restart: ${WATCHDOG_KILLS} watchdog SIGKILLs, each replaced in ` +
        `${replacedInMs.map((ms) => ms.toFixed(0)).join(', ')} ms; then server SIGKILL with ${doomed.length} ` +
        `processes (${doomed.length / 5} sessions), ${alive.length} alive, all gone in ${elapsedMs.toFixed(0)} ms`,
    );
    expect(alive.map((p) => `${p.pid} ${commandLineOf(p.pid)}`)).toEqual([]);
    expect(replacedInMs.filter(Number.isNaN)).toEqual([]);
    expect(watchdogs).toHaveLength(1);
    // Its work done, the watchdog goes too.
    await timeUntil(() => watchdogs.every((w) => !survives(w)), 2_000);
  });
});
