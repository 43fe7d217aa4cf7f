import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GC_PROBE_ARGS,
  SOAK,
  childrenOf,
  collectGarbage,
  commandLineOf,
  identify,
  killIfRunning,
  openFdCount,
  rssKb,
  startServer,
  survives,
  timeUntil,
  writeUntil,
  type ProcessIdentity,
  type ServerUnderTest,
} from './harness.js';

const SHORT_COMMANDS = SOAK ? 1000 : 200;
const TTY_SESSIONS = SOAK ? 200 : 40;
// RSS climbs by ~25 MB over the first few hundred calls as V8 grows its heap capacity (heapTotal ~30 -> ~48 MB, kept
// after collections) and the allocator sets up arenas, then levels off (measured up to 5000 commands and 2000 tty
// sessions): the warm-up gets past that, so what is compared afterwards is growth, not set-up.
const WARM_UP_COMMANDS = 300;
const WARM_UP_SESSIONS = 40;
/** A descriptor or two may be in flight at the moment of counting (a /proc read, a closing pipe). */
const FD_SLACK = 3;
/**
 * Both compared right after a full collection. Measured over the full run: the heap stays within ~1 MB and RSS within
 * ~10 MB of the warmed-up size; a leak of 25 kB per session or 4 kB per command would cross these.
 */
const RSS_GROWTH_LIMIT_KB = 30 * 1024;
const HEAP_GROWTH_LIMIT_KB = 5 * 1024;

describe('resources of the server over many sessions', () => {
  let server: ServerUnderTest;
  const seen: ProcessIdentity[] = [];
  beforeAll(async () => {
    server = await startServer('leaks', { nodeArgs: GC_PROBE_ARGS });
  });
  afterAll(async () => {
    for (const target of seen) killIfRunning(target);
    await server?.close();
  });

  async function shortCommand(): Promise<void> {
    const reply = await server.exec({ cmd: 'echo hi', tty: false, login: false });
    expect(reply).toMatchObject({ exit_code: 0, output: 'hi\n' });
  }

  async function ttySession(n: number): Promise<void> {
    const started = await server.exec({
      cmd: 'bash --norc --noprofile -i',
      tty: true,
      login: false,
      yield_time_ms: 5_000,
    });
    const sessionId = started.session_id;
    expect(sessionId).toBeTypeOf('number');
    const listed = (await server.list()).find((s) => s.session_id === sessionId);
    seen.push(identify(listed!.pid!));
    const { output } = await writeUntil(server, sessionId!, `echo leak-$((${n}*2))\n`, (out) =>
      out.includes(`leak-${n * 2}`),
    );
    expect(output).toContain(`leak-${n * 2}`);
    await server.call('close_session', { session_id: sessionId });
  }

  it(
    `returns to its baseline of fds and memory after ${SHORT_COMMANDS} commands and ${TTY_SESSIONS} tty sessions`,
    { timeout: 900_000 },
    async () => {
      for (let i = 0; i < WARM_UP_COMMANDS; i++) await shortCommand();
      for (let i = 0; i < WARM_UP_SESSIONS; i++) await ttySession(-1 - i);
      const watchdogs = childrenOf(server.pid).filter((pid) => commandLineOf(pid).includes('watchdog.mjs'));
      const fdsBefore = openFdCount(server.pid);
      const before = await collectGarbage(server);
      let rssPeak = before.rssKb;

      const started = performance.now();
      for (let i = 0; i < SHORT_COMMANDS; i++) {
        await shortCommand();
        if (i % 50 === 0) rssPeak = Math.max(rssPeak, rssKb(server.pid));
      }
      const shortSeconds = (performance.now() - started) / 1000;
      for (let i = 0; i < TTY_SESSIONS; i++) {
        await ttySession(i);
        if (i % 10 === 0) rssPeak = Math.max(rssPeak, rssKb(server.pid));
      }
      const ttySeconds = (performance.now() - started) / 1000 - shortSeconds;

      expect(await server.list()).toEqual([]);
      // Every session process is gone, and the server has no child left but its watchdog.
      await timeUntil(() => seen.every((p) => !survives(p)), 5_000).catch(() => undefined);
      const survivors = seen.filter(survives);
      const strayChildren = childrenOf(server.pid).filter((pid) => !watchdogs.includes(pid));
      // A descriptor closes a moment after the call that ended its session has answered.
      await timeUntil(() => openFdCount(server.pid) <= fdsBefore + FD_SLACK, 5_000).catch(() => undefined);
      const fdsAfter = openFdCount(server.pid);
      rssPeak = Math.max(rssPeak, rssKb(server.pid));
      const after = await collectGarbage(server);
      const mb = (kb: number) => (kb / 1024).toFixed(1);
      console.log(
        `leaks: ${SHORT_COMMANDS} commands (${shortSeconds.toFixed(1)} s) + ${TTY_SESSIONS} tty sessions (${ttySeconds.toFixed(1)} s) ` +
          `after a warm-up of ${WARM_UP_COMMANDS} + ${WARM_UP_SESSIONS}; fds ${fdsBefore} -> ${fdsAfter}; ` +
          `RSS after GC ${mb(before.rssKb)} -> ${mb(after.rssKb)} MB (${after.rssKb >= before.rssKb ? '+' : ''}${mb(after.rssKb - before.rssKb)}, ` +
          `peak ${mb(rssPeak)} MB); heap after GC ${mb(before.heapUsedKb)} -> ${mb(after.heapUsedKb)} MB; ` +
          `${survivors.length} of ${seen.length} session processes alive, ${strayChildren.length} stray children`,
      );
      expect(survivors.map((p) => `${p.pid} ${commandLineOf(p.pid)}`)).toEqual([]);
      expect(strayChildren.map((pid) => `${pid} ${commandLineOf(pid)}`)).toEqual([]);
      expect(fdsAfter).toBeLessThanOrEqual(fdsBefore + FD_SLACK);
      expect(after.rssKb - before.rssKb).toBeLessThan(RSS_GROWTH_LIMIT_KB);
      expect(after.heapUsedKb - before.heapUsedKb).toBeLessThan(HEAP_GROWTH_LIMIT_KB);
    },
  );
});
