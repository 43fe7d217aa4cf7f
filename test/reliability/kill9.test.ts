import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PROCESS_TAG_VAR } from '../../src/linux/process-tag.js';
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

describe('SIGKILL of the stdio server during a shell call', () => {
  let server: ServerUnderTest | undefined;
  const doomed: ProcessIdentity[] = [];
  afterAll(async () => {
    for (const target of doomed) killIfRunning(target);
    await server?.close();
  });

  it('leaves none of what the call started alive: the watchdog knows one-shot commands too', async () => {
    server = await startServer('kill9-shell', { cliArgs: ['--tool', 'exec_command', '--tool', 'shell'] });
    // The call never answers: its program waits, with a background job and a job in a session of its own.
    const call = server.call('shell', {
      command: ['bash', '-c', 'sleep 1000 & setsid sleep 1002 & exec sleep 1001'],
      timeout_ms: 60_000,
    });
    call.catch(() => undefined); // the server dies under it
    const descendants = (pid: number): number[] => childrenOf(pid).flatMap((child) => [child, ...descendants(child)]);
    const started = () =>
      descendants(server!.pid).filter((pid) => /^(setsid )?sleep 100[0-2]$/.test(commandLineOf(pid)));
    await timeUntil(() => started().length >= 2, 5_000);
    // The setsid'd one has left the tree: it is found by the call's own process tag (in its environment).
    const tagOf = (pid: number) =>
      readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .find((entry) => entry.startsWith(`${PROCESS_TAG_VAR}=`));
    const tag = tagOf(started()[0]!);
    expect(tag).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sleepers = execFileSync('pgrep', ['-x', 'sleep']).toString().trim().split('\n').map(Number);
    const ours = sleepers.filter((pid) => {
      try {
        return tagOf(pid) === tag;
      } catch {
        return false; // gone meanwhile
      }
    });
    for (const pid of [...started(), ...ours]) if (!doomed.some((p) => p.pid === pid)) doomed.push(identify(pid));
    expect(doomed.length).toBeGreaterThanOrEqual(3);

    process.kill(server.pid, 'SIGKILL');
    const elapsedMs = await timeUntil(() => doomed.every((p) => !survives(p)), 3_000).catch(() => Number.NaN);
    const alive = doomed.filter(survives);
    console.log(
      `kill9 during shell: ${doomed.length} processes, ${alive.length} alive, all gone in ${elapsedMs.toFixed(0)} ms`,
    );
    expect(alive.map((p) => `${p.pid} ${commandLineOf(p.pid)}`)).toEqual([]);
  });
});
