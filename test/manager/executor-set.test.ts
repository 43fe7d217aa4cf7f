// The executors a manager holds: an executor of the earlier seam (spawn, no start) is refused, saying why.
import { describe, expect, it } from 'vitest';
import { UnifiedExecManager, type Executor } from '../../src/index.js';
import { FakeExecutor } from '../helpers/fake-executor.js';

describe('a manager given an executor', () => {
  it('refuses one without start(request), as an executor written for the earlier seam is', () => {
    const old = { spawn: () => undefined } as unknown as Executor;
    expect(() => new UnifiedExecManager({ executor: old })).toThrow(
      /executor `local` has no start\(request\): an Executor takes a command request/,
    );
    expect(() => new UnifiedExecManager({ executors: { box: old } })).toThrow(/Invalid manager settings/);
  });

  it('names it `local` when it runs here, `default` when its location is elsewhere', async () => {
    for (const [location, name] of [
      [undefined, 'local'],
      ['ws://10.0.0.2:8700', 'default'],
    ] as const) {
      const executor = Object.assign(new FakeExecutor(), location ? { location } : {});
      const manager = new UnifiedExecManager({ executor, sandbox: 'danger-full-access' });
      const reply = manager.execCommand({ command: 'sleep 1', yieldTimeMs: 250 });
      await expect(reply).resolves.toMatchObject({ state: 'running' });
      expect(manager.listSessions()).toMatchObject([{ executor: name, location: location ?? 'local' }]);
      await manager.shutdown();
    }
  });
});
