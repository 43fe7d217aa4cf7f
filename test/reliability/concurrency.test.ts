import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecResult } from '../../src/tools/output-schemas.js';
import {
  SOAK,
  identify,
  killIfRunning,
  startServer,
  survives,
  textOf,
  timeUntil,
  writeUntil,
  type ProcessIdentity,
  type ServerUnderTest,
} from './harness.js';

const SESSIONS = 64; // the default maxSessions: all of them live, none pruned
const WARNING_FROM = 60;
const ROUNDS = SOAK ? 50 : 10;
const SAME_SESSION_CALLERS = SOAK ? 100 : 20;
const SHELL = { cmd: 'bash --norc --noprofile -i', tty: true, login: false, yield_time_ms: 10_000 };

const warning = (open: number) =>
  `Warning: The maximum number of unified exec processes you can keep open is ${WARNING_FROM} and you currently have ${open} processes open. Reuse older processes or close them to prevent automatic pruning of old processes`;

/** Every marker `mk<n>q` in a text, as the numbers n. */
const markersIn = (text: string) => [...text.matchAll(/mk(\d+)q/g)].map((m) => Number(m[1]));

/** Deterministic shuffle, so a failure can be replayed. */
function shuffled<T>(items: T[], seed = 42): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe(`${SESSIONS} tty sessions driven concurrently over one MCP connection`, () => {
  let server: ServerUnderTest;
  const ids: number[] = []; // ids[n] is the session whose MARK is mk<n>q
  const processes: ProcessIdentity[] = [];
  const figures: string[] = [];

  beforeAll(async () => {
    server = await startServer('concurrency');
  });
  afterAll(async () => {
    await server?.close();
    // Hanging up ends every session.
    await timeUntil(() => processes.every((p) => !survives(p)), 10_000).catch(() => undefined);
    const alive = processes.filter(survives);
    for (const target of alive) killIfRunning(target);
    console.log(
      `concurrency: ${figures.join('; ')}; ${alive.length} of ${processes.length} session processes alive after hang-up`,
    );
    expect(alive).toEqual([]);
  });

  it(`opens ${SESSIONS} sessions, warning from the ${WARNING_FROM}th on`, async () => {
    const started = performance.now();
    // All but the last five at once; then one by one, so each warning has a known count.
    const first = await Promise.all(Array.from({ length: WARNING_FROM - 1 }, () => server.exec(SHELL)));
    for (const reply of first) expect(reply.warnings).toBeUndefined();
    ids.push(...first.map((reply) => reply.session_id!));
    for (let open = WARNING_FROM; open <= SESSIONS; open++) {
      const result = await server.call('exec_command', SHELL);
      const reply = result.structuredContent as ExecResult;
      expect(reply.warnings).toEqual([warning(open)]);
      expect(textOf(result)).toContain(`\n${warning(open)}\nOutput:\n`);
      ids.push(reply.session_id!);
    }
    const listed = await server.list();
    expect(new Set(listed.map((s) => s.session_id))).toEqual(new Set(ids));
    for (const session of listed) processes.push(identify(session.pid!));
    figures.push(
      `${SESSIONS} sessions opened in ${((performance.now() - started) / 1000).toFixed(1)} s, warned at ${WARNING_FROM}..${SESSIONS}`,
    );

    // Each shell gets its own marker, set concurrently.
    await Promise.all(
      ids.map((id, n) =>
        writeUntil(server, id, `MARK=mk${n}q; echo set-$MARK\n`, (out) => out.includes(`set-mk${n}q`)),
      ),
    );
  }, 180_000);

  it('never lets output cross sessions when calls to all of them interleave', async () => {
    expect(ids).toHaveLength(SESSIONS);
    const calls = shuffled(ids.flatMap((_, n) => Array.from({ length: ROUNDS }, (__, round) => ({ n, round }))));
    const started = performance.now();
    const replies = await Promise.all(
      calls.map(async ({ n, round }) => ({
        n,
        reply: await server.write(ids[n]!, `echo $MARK-${round}\n`, { yield_time_ms: 10_000 }),
      })),
    );
    const seconds = (performance.now() - started) / 1000;
    const crossed = replies.filter(({ n, reply }) => markersIn(reply.output).some((m) => m !== n));
    expect(crossed.map(({ n, reply }) => `session mk${n}q got ${JSON.stringify(reply.output)}`)).toEqual([]);

    // Each session printed each round's line exactly once (late output still waits in its own session).
    const printed = new Map<number, string>(ids.map((_, n) => [n, '']));
    for (const { n, reply } of replies) printed.set(n, printed.get(n)! + reply.output);
    for (const [n, output] of printed) {
      const lastLine = `mk${n}q-${ROUNDS - 1}`;
      const all = output.includes(lastLine)
        ? output
        : output + (await writeUntil(server, ids[n]!, '', (out) => out.includes(lastLine))).output;
      expect(markersIn(all).every((m) => m === n)).toBe(true);
      for (let round = 0; round < ROUNDS; round++) {
        expect(all.split(/\r?\n/).filter((line) => line === `mk${n}q-${round}`)).toHaveLength(1);
      }
    }
    figures.push(
      `${calls.length} concurrent write_stdin calls across ${SESSIONS} sessions in ${seconds.toFixed(1)} s, ${crossed.length} crossed`,
    );
  }, 300_000);

  it('runs concurrent writes to one session one after another', async () => {
    const id = ids[0]!;
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: SAME_SESSION_CALLERS }, (_, k) =>
        server.write(id, `echo seq-${k}\n`, { yield_time_ms: 10_000 }).then((reply) => ({ k, reply })),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(replies).toHaveLength(SAME_SESSION_CALLERS);
    let interleaved = 0;
    for (const { k, reply } of replies) {
      const lines = reply.output.split(/\r?\n/);
      // Its own command echoed and answered, nobody else's.
      const others = [...reply.output.matchAll(/seq-(\d+)/g)].map((m) => Number(m[1])).filter((j) => j !== k);
      if (others.length > 0) interleaved++;
      expect({ k, others }).toEqual({ k, others: [] });
      expect(lines.some((line) => line.endsWith(`echo seq-${k}`))).toBe(true);
      expect(lines.filter((line) => line === `seq-${k}`)).toHaveLength(1);
    }
    figures.push(
      `${SAME_SESSION_CALLERS} concurrent writes to one session in ${(seconds * 1000).toFixed(0)} ms: each seq-<k> once, ${interleaved} replies interleaved`,
    );
  }, 120_000);
});
