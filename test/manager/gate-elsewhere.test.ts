import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/policy.js';
import { FakeExecutor } from '../helpers/fake-executor.js';
import { rejection, useManagers } from '../helpers/manager.js';

/** An executor that runs programs on another machine: nothing here can check what its shell is. */
class Elsewhere extends FakeExecutor {
  readonly location = 'ws://10.0.0.2:8700';
}

describe('a command leaving the sandbox on an executor elsewhere', () => {
  const managers = useManagers();
  const setup = () => {
    const executor = new Elsewhere();
    const asked: ApprovalRequest[] = [];
    const manager = managers({
      executor,
      sandbox: 'workspace-write',
      cwd: '/',
      onApproval: async (request) => {
        asked.push(request);
        return { decision: 'approve' };
      },
    });
    return { executor, asked, manager };
  };

  it('is refused with a shell of its own, before anyone is asked, and nothing starts', async () => {
    const { executor, asked, manager } = setup();
    const error = await rejection(
      manager.execCommand({ command: 'git status', shell: '/tmp/x/bash', sandboxPermissions: 'require_escalated' }),
      'NOT_APPROVED',
    );
    expect(error.message).toMatch(
      /^Not run: the shell `\/tmp\/x\/bash` may not run a command outside the sandbox on ws:\/\/10\.0\.0\.2:8700: it cannot be checked from here/,
    );
    expect(asked).toHaveLength(0);
    expect(executor.requests).toHaveLength(0);
  });

  it('asks with the configured shell, and the person reads where it runs', async () => {
    const { executor, asked, manager } = setup();
    const running = manager.execCommand({
      command: 'git status',
      login: false,
      sandboxPermissions: 'require_escalated',
    });
    await expect.poll(() => executor.processes.length).toBe(1);
    executor.process(0).exit(0);
    expect((await running).exitCode).toBe(0);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      argv: ['/bin/bash', '-c', 'git status'],
      location: 'ws://10.0.0.2:8700',
      escalated: true,
    });
  });
});
