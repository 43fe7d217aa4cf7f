// Inputs that held the server's event loop for seconds to hours, run against the real `serve`: while one client sends
// each, another client's `echo` must still be answered promptly.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverServes, startServe, type ServeProcess } from './cli-process.js';
import { TOKEN_ENV, connectHttp } from './http-client.js';

/** Generous for a loaded 2-core machine; before the fixes the slowest echo waited 14-20 s. */
const PROMPT_MS = 5_000;
/** The other client keeps calling at least this long, so work the input leaves for later (a timer) is inside it. */
const WATCH_MS = 3_000;

/**
 * Runs `attack` on one client while the other calls `echo` one call after another, until the attack's call has
 * settled and WATCH_MS have passed; answers with the slowest of those calls, in ms.
 */
async function slowestEchoDuring(attacker: Client, victim: Client, attack: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  let settled = false;
  const attackCall = attacker
    .callTool({ name: 'exec_command', arguments: { login: false, ...attack } }, undefined, { timeout: 600_000 })
    .finally(() => (settled = true));
  let slowest = 0;
  while (!settled || performance.now() - started < WATCH_MS) {
    const before = performance.now();
    const reply = await victim.callTool({ name: 'exec_command', arguments: { cmd: 'echo ping', login: false } });
    slowest = Math.max(slowest, performance.now() - before);
    expect(JSON.stringify(reply.content)).toContain('ping');
  }
  await attackCall;
  return slowest;
}

describe('input that once froze the server for every client', () => {
  let server: ServeProcess;
  let attacker: Client;
  let victim: Client;

  beforeAll(async () => {
    server = await startServe([], TOKEN_ENV);
    attacker = (await connectHttp(server.url)).client;
    victim = (await connectHttp(server.url)).client;
  });

  afterAll(async () => {
    await attacker?.close();
    await victim?.close();
    await server?.stop();
    killLeftoverServes();
  });

  it('an apply_patch heredoc of 130 000 blank lines then a line of text (a regex rescanned the blank run)', async () => {
    // Before: `/\n+$/` was tried from each of the blank lines, about 15 s here (hours at the 4 MiB body limit).
    const cmd = `apply_patch <<'EOF'\n${'\n'.repeat(130_000)}x\nEOF\n`;
    expect(await slowestEchoDuring(attacker, victim, { cmd })).toBeLessThan(PROMPT_MS);
  });

  it('a session printing 80 kB of \\x01, a letter, then a cursor move (a regex anchored with $ over the drain)', async () => {
    // Before: the controls before the first cursor address were matched from each \x01 in turn, about 6 s.
    const cmd = `head -c 80000 /dev/zero | tr '\\0' '\\1'; printf 'x\\033[2;1H'`;
    expect(await slowestEchoDuring(attacker, victim, { cmd, tty: true })).toBeLessThan(PROMPT_MS);
  });

  it('a full-screen session repeating a character 30 000 000 times, five times over (xterm REP)', async () => {
    // Before: the screen's emulator printed every repeat, about 2 s each, on the server's loop.
    const cmd = `printf '\\033[?1049h'; for i in 1 2 3 4 5; do printf 'a\\033[30000000b'; done; sleep 1`;
    expect(await slowestEchoDuring(attacker, victim, { cmd, tty: true })).toBeLessThan(PROMPT_MS);
  });
});
