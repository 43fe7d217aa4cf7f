import { describe, expect, it } from 'vitest';
import type { ManagerOptions } from '../../src/index.js';
import { BASH, rejection, useManagers } from '../helpers/manager.js';
import { NO_SANDBOX, useWorkspace } from '../sandbox/sandbox-helpers.js';
import { titled } from '../helpers/needs.js';

const newManager = useManagers();

const TRAP = "trap 'echo got INT; exit 3' INT; echo ready; while true; do sleep 0.1; done";
const STDIN_CLOSED = 'stdin is closed for this session; rerun exec_command with tty=true to keep stdin open';

/** Ctrl-C to a session without a terminal, as the pinned Codex CLI (test/clients/package.json) answers it. */
function interruptSuite(options: () => ManagerOptions) {
  async function start(cmd: string) {
    const manager = newManager(options());
    const started = await manager.execCommand({ ...BASH, command: cmd, yieldTimeMs: 500 });
    expect(started.sessionId).toBeDefined();
    return { manager, sessionId: started.sessionId! };
  }

  it('interrupts the program: sleep ends with 130 at once', async () => {
    const { manager, sessionId } = await start('sleep 30');
    const reply = await manager.writeStdin({ sessionId, chars: '\u0003', yieldTimeMs: 5_000 });
    expect(reply).toMatchObject({ exitCode: 130, output: '' });
    expect(reply.wallTimeSeconds).toBeLessThan(2);
  });

  it("runs the program's trap, and reports the exit code the trap chose", async () => {
    const { manager, sessionId } = await start(TRAP);
    const reply = await manager.writeStdin({ sessionId, chars: '\u0003', yieldTimeMs: 5_000 });
    expect(reply).toMatchObject({ exitCode: 3, output: 'got INT\n' });
  });

  it('waits out its yield on a program that ignores SIGINT, which runs on', async () => {
    const { manager, sessionId } = await start("trap '' INT; sleep 1.5; echo done");
    const reply = await manager.writeStdin({ sessionId, chars: '\u0003', yieldTimeMs: 500 });
    expect(reply.sessionId).toBe(sessionId);
    expect(reply.wallTimeSeconds).toBeGreaterThanOrEqual(0.45);
    const later = await manager.writeStdin({ sessionId, chars: '', yieldTimeMs: 5_000 });
    expect(later).toMatchObject({ exitCode: 0, output: 'done\n' });
  });

  it.each(['x', 'x\u0003', '\u0003\n', '\u0003\u0003', '\u0004'])(
    'refuses any other input (%j) as closed stdin, and the program runs on',
    async (chars) => {
      const { manager, sessionId } = await start('sleep 30');
      const error = await rejection(manager.writeStdin({ sessionId, chars }), 'STDIN_CLOSED');
      expect(error.message).toBe(STDIN_CLOSED);
      expect(manager.listSessions()).toMatchObject([{ sessionId, exited: false }]);
    },
  );
}

describe('Ctrl-C ("\\u0003") to a session without a terminal', () => {
  interruptSuite(() => ({}));
});

describe.skipIf(NO_SANDBOX !== undefined)(
  titled('Ctrl-C to a session without a terminal, in the sandbox', NO_SANDBOX),
  () => {
    const ws = useWorkspace();
    interruptSuite(() => ({ cwd: ws.dir, sandbox: 'workspace-write', approvalPolicy: 'never' }));
  },
);
