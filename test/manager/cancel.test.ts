import { describe, expect, it } from 'vitest';
import { BASH, rejection, useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/** Prints `tick 1`, `tick 2`, … every 200 ms on a terminal, forever. */
const TICKER = 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done';

const ticks = (text: string) => [...text.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));

describe('a call whose caller gives up (its signal aborts)', () => {
  it('ends at once, frees its session, and leaves what it did not deliver for the next call', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...BASH, command: TICKER, tty: true, yieldTimeMs: 500 });
    const sessionId = started.sessionId!;
    const seen = ticks(started.output);

    const abort = new AbortController();
    const before = performance.now();
    const poll = manager.writeStdin({ sessionId, chars: '', yieldTimeMs: 30_000 }, { signal: abort.signal });
    setTimeout(() => abort.abort(), 1_000);
    await rejection(poll, 'CANCELLED');
    expect(performance.now() - before).toBeLessThan(1_500);

    const next = await manager.writeStdin({ sessionId, chars: 'x', yieldTimeMs: 300 });
    expect(next.wallTimeSeconds).toBeLessThan(0.6);
    const all = [...seen, ...ticks(next.output)];
    // Every line once, in order: none lost while the cancelled call waited, none given twice.
    expect(all).toEqual(all.map((_, i) => i + 1));
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  it('answers a call queued behind it within that call’s own yield', async () => {
    const manager = newManager();
    const { sessionId } = await manager.execCommand({ ...BASH, command: TICKER, tty: true, yieldTimeMs: 300 });
    const abort = new AbortController();
    const long = manager.writeStdin(
      { sessionId: sessionId!, chars: '', yieldTimeMs: 30_000 },
      { signal: abort.signal },
    );
    const before = performance.now();
    const queued = manager.writeStdin({ sessionId: sessionId!, chars: 'y', yieldTimeMs: 300 });
    setTimeout(() => abort.abort(), 500);
    await rejection(long, 'CANCELLED');
    await queued;
    expect(performance.now() - before).toBeLessThan(1_300);
  });

  it('keeps the exit of a program that ended while a cancelled call waited for the next call', async () => {
    const manager = newManager();
    const { sessionId } = await manager.execCommand({ ...BASH, command: 'sleep 0.5; echo bye', yieldTimeMs: 250 });
    const abort = new AbortController();
    const poll = manager.writeStdin(
      { sessionId: sessionId!, chars: '', yieldTimeMs: 30_000 },
      { signal: abort.signal },
    );
    abort.abort();
    await rejection(poll, 'CANCELLED');
    await new Promise((resolve) => setTimeout(resolve, 800));
    const next = await manager.writeStdin({ sessionId: sessionId!, chars: '', yieldTimeMs: 5_000 });
    expect(next).toMatchObject({ exitCode: 0, output: 'bye\n' });
  });

  it('leaves an exec_command given up during its first yield running under its session', async () => {
    const manager = newManager();
    const abort = new AbortController();
    const start = manager.execCommand(
      { ...BASH, command: 'echo first; sleep 30', yieldTimeMs: 10_000 },
      { signal: abort.signal },
    );
    setTimeout(() => abort.abort(), 300);
    await rejection(start, 'CANCELLED');
    const [listed] = manager.listSessions();
    expect(listed).toMatchObject({ exited: false });
    const next = await manager.writeStdin({ sessionId: listed!.sessionId, chars: '', yieldTimeMs: 300 });
    expect(next.output).toBe('first\n');
  });
});
