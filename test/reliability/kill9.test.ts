import { afterAll, describe, expect, it } from 'vitest';
import {
  BACKGROUND_HOLDER,
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
const SESSIONS_PER_KIND = 4;
const BACKGROUND_PER_SESSION = 4;

describe('SIGKILL of the stdio server', () => {
  let server: ServerUnderTest | undefined;
  const doomed: ProcessIdentity[] = [];

  afterAll(async () => {
    // Only if the watchdog failed: end what this test made, by pid.
    for (const target of doomed) killIfRunning(target);
    await server?.close();
  });

  it('leaves no session process or background grandchild alive 2 s later', async () => {
    server = await startServer('kill9');
    const kinds = [...Array(SESSIONS_PER_KIND).fill(true), ...Array(SESSIONS_PER_KIND).fill(false)] as boolean[];
    const replies = await Promise.all(
      kinds.map((tty) => server!.exec({ cmd: HOLDER, tty, login: false, yield_time_ms: 1_500 })),
    );
    const backgroundPids = replies.flatMap((reply) => [...reply.output.matchAll(/BG=(\d+)/g)].map((m) => Number(m[1])));
    expect(replies.every((reply) => reply.session_id !== undefined)).toBe(true);
    expect(backgroundPids).toHaveLength(kinds.length * BACKGROUND_PER_SESSION);

    const sessions = await server.list();
    expect(sessions).toHaveLength(kinds.length);
    const watchdogs = childrenOf(server.pid).filter((pid) => commandLineOf(pid).includes('watchdog.mjs'));
    expect(watchdogs).toHaveLength(1);
    for (const pid of [...sessions.map((s) => s.pid!), ...backgroundPids]) doomed.push(identify(pid));
    const watchdog = identify(watchdogs[0]!);

    process.kill(server.pid, 'SIGKILL');
    const elapsedMs = await timeUntil(() => doomed.every((p) => !survives(p)), 2_000).catch(() => Number.NaN);
    const alive = doomed.filter(survives);
    console.log(
      `kill9: ${doomed.length} processes (${sessions.length} sessions: ${SESSIONS_PER_KIND} tty + ${SESSIONS_PER_KIND} pipes, ` +
        `${backgroundPids.length} background grandchildren), ${alive.length} alive after server SIGKILL, ` +
        `all gone in ${elapsedMs.toFixed(0)} ms`,
    );
    expect(alive.map((p) => `${p.pid} ${commandLineOf(p.pid)}`)).toEqual([]);
    // Its work done, the watchdog goes too.
    await timeUntil(() => !survives(watchdog), 2_000);
  });
});
