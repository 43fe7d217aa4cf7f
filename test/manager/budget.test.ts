// Managers that share a SessionBudget (an HTTP server's clients) hold its limits together, and one client never ends
// another's sessions. Fake processes: no PTY needed.
import { describe, expect, it } from 'vitest';
import { SessionBudget } from '../../src/index.js';
import { FakeExecutor } from '../helpers/fake-executor.js';
import { rejection, useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/** A manager on fake processes with a strictly increasing clock, sharing `budget`. */
function client(budget: SessionBudget) {
  const executor = new FakeExecutor();
  let now = 1_000;
  const manager = newManager({ executor, budget, returnOn: 'deadline', clock: () => now++, shellSnapshot: false });
  const open = async () => (await manager.execCommand({ command: 'serve', yieldTimeMs: 250 })).sessionId!;
  const ids = () => manager.listSessions().map((s) => s.sessionId);
  return { manager, executor, open, ids };
}

describe('SessionBudget shared by managers', () => {
  it('makes a client at the shared cap prune its own least recently used session, never another client', async () => {
    const budget = new SessionBudget({ maxSessions: 3, maxBufferedBytes: 1 << 20 });
    const a = client(budget);
    const b = client(budget);
    const [a1, a2] = [await a.open(), await a.open()];
    const b1 = await b.open();
    expect(budget.liveSessions).toBe(3);

    const b2 = await b.open();
    expect(b.ids()).toEqual([b2]);
    expect(a.ids()).toEqual([a1, a2]);
    expect(b1).not.toBe(b2);
    expect(b.executor.process(0).terminateCalls).toBe(1);
    expect(budget.liveSessions).toBe(3);
  });

  it('refuses a new session to a client with none of its own at the cap, naming the cap', async () => {
    const budget = new SessionBudget({ maxSessions: 2, maxBufferedBytes: 1 << 20 });
    const a = client(budget);
    await a.open();
    await a.open();
    const c = client(budget);
    const error = await rejection(c.manager.execCommand({ command: 'serve', yieldTimeMs: 250 }), 'LIMIT_EXCEEDED');
    expect(error.message).toBe(
      'The server holds 2 live sessions across clients (limit 2); try again when other clients have closed some',
    );
    expect(c.executor.processes).toHaveLength(0); // refused before anything started
  });

  it('refuses new sessions while the clients together hold too much unread output', async () => {
    const budget = new SessionBudget({ maxSessions: 64, maxBufferedBytes: 1000 });
    const a = client(budget);
    await a.open();
    a.executor.process(0).print('x'.repeat(1200));
    const b = client(budget);
    const error = await rejection(b.manager.execCommand({ command: 'serve', yieldTimeMs: 250 }), 'LIMIT_EXCEEDED');
    expect(error.message).toMatch(
      /^The server's sessions hold 1200 bytes of unread output \(limit 1000 across clients\)/,
    );
  });

  it('stops counting a manager once it has shut down', async () => {
    const budget = new SessionBudget({ maxSessions: 2, maxBufferedBytes: 1 << 20 });
    const a = client(budget);
    await a.open();
    await a.open();
    await a.manager.shutdown();
    expect(budget.liveSessions).toBe(0);
    const b = client(budget);
    expect(await b.open()).toBeTypeOf('number');
  });
});
