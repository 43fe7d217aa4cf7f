import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectApprovalClient, decide, type Answer } from '../helpers/approval-client.js';
import {
  childrenOf,
  commandLineOf,
  identify,
  killIfRunning,
  survives,
  textOf,
  timeUntil,
  type ProcessIdentity,
} from '../reliability/harness.js';
import type { SandboxBackend } from '../../src/sandbox/policy.js';
import { BACKENDS, NO_SANDBOX, REFUSED, useWorkspace } from './sandbox-helpers.js';
import { titled } from '../helpers/needs.js';

/** What the start line says of each backend, after the writable roots. */
const BACKEND_LINE: Record<SandboxBackend, string> = {
  bwrap: ', on bubblewrap',
  landlock: ', on Landlock, which leaves other processes visible, and with the network off allows no sockets at all',
};

describe.each(BACKENDS)('unified-exec mcp: sandboxed by default, approvals through elicitation, on $backend', (b) => {
  if (b.skip) it.skip(`skipped: ${b.skip}`, () => undefined);
  else approvals(b.backend);
});

function approvals(backend: SandboxBackend): void {
  const ws = useWorkspace();
  const clients: { client: Client }[] = [];
  const outside = () => `/var/tmp/unified-exec-mcp-escalated-${process.pid}-${clients.length}`;
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.client.close()));
  });
  const open = async (answer?: Answer, args?: string[]) => {
    const c = await connectApprovalClient(ws.dir, answer, ['--sandbox-backend', backend, ...(args ?? [])]);
    clients.push(c);
    return c;
  };

  it('states the policy in force, and a write outside the workspace is refused with a reason', async () => {
    const c = await open();
    expect(c.stderr()).toContain(
      `Sandbox: workspace-write, network off (writable: ${ws.dir}, /tmp)${BACKEND_LINE[backend]}`,
    );
    expect(c.stderr()).toMatch(/; approvals: on-request\./);
    const r = await c.call('exec_command', { cmd: `touch ${outside()}`, login: false });
    expect(textOf(r)).toContain('Process exited with code 1');
    expect(textOf(r)).toMatch(
      /Sandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them .*require_escalated/,
    );
    mkdirSync(join(ws.dir, 'src'), { recursive: true });
    const inside = await c.call('exec_command', { cmd: 'touch src/made-inside && ls src/made-inside', login: false });
    expect(textOf(inside)).toContain('Process exited with code 0');
  });

  it('approve: the person sees the command and the reason, and it runs outside the sandbox', async () => {
    const target = outside();
    const c = await open(decide('approve'));
    try {
      const r = await c.call('exec_command', {
        cmd: `touch ${target}`,
        login: false,
        sandbox_permissions: 'require_escalated',
        justification: 'the build writes next to the workspace',
      });
      expect(textOf(r)).toContain('Process exited with code 0');
      expect(existsSync(target)).toBe(true);
      expect(c.asked).toHaveLength(1);
      const params = c.asked[0]!.params as { message: string; requestedSchema: { required: string[] } };
      expect(params.message).toContain(`touch ${target}`);
      expect(params.message).toContain('the build writes next to the workspace');
      expect(params.requestedSchema.required).toEqual(['decision']);
    } finally {
      rmSync(target, { force: true });
    }
  });

  it('approve for this session: the second identical call does not ask', async () => {
    const c = await open(decide('approve-for-session'));
    const call = { cmd: 'rm -rf scratch-dir', login: false };
    expect(textOf(await c.call('exec_command', call))).toContain('Process exited with code 0');
    expect(textOf(await c.call('exec_command', call))).toContain('Process exited with code 0');
    expect(c.asked).toHaveLength(1);
  });

  it('deny, decline and cancel: the command does not run, and the model is told who said no', async () => {
    const target = outside();
    const cases: Array<[Answer, RegExp]> = [
      [decide('deny', 'not on my machine'), /Not run: the user denied this command\. They said: not on my machine$/],
      // A client that cannot ask anyone answers so: nobody refused, nobody approved.
      [
        () => ({ action: 'decline' }),
        /Not run: nobody approved this command\. The client declined the approval request without a decision .*Do it without leaving the sandbox/,
      ],
      [
        () => ({ action: 'cancel' }),
        /Not run: nobody approved this command\. The client cancelled the approval request without a decision /,
      ],
    ];
    for (const [answer, reply] of cases) {
      const c = await open(answer);
      const r = await c.call('exec_command', {
        cmd: `touch ${target}`,
        login: false,
        sandbox_permissions: 'require_escalated',
      });
      expect(c.asked).toHaveLength(1);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(reply);
      expect(textOf(r)).not.toContain('the user chose');
      expect(existsSync(target)).toBe(false);
    }
  });

  it('a client without elicitation: refused, and the reply says nobody could be asked', async () => {
    const c = await open();
    const r = await c.call('exec_command', { cmd: 'git reset --hard', login: false });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/needs the user's approval \(it is destructive.*nobody can be asked here/);
  });

  it('the shell tool runs sandboxed too, and says what the sandbox refused', async () => {
    const c = await open(undefined, ['--tool', 'shell']);
    const tools = await c.client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['shell']);
    const r = await c.call('shell', { command: ['bash', '-c', `echo x > ${outside()}`] });
    const reply = JSON.parse(textOf(r)) as { output: string; metadata: { exit_code: number } };
    expect(reply.metadata.exit_code).toBe(1);
    expect(reply.output).toMatch(
      new RegExp(
        `${REFUSED[backend]}\nSandbox: a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them`,
      ),
    );
  });
}

// bubblewrap's PID namespace, which the Landlock backend does not have (docs/sandbox.md says so).
describe.skipIf(NO_SANDBOX !== undefined)(
  titled('SIGKILL of the sandboxed server and its watchdog together, on bubblewrap', NO_SANDBOX),
  () => {
    const ws = useWorkspace();
    const doomed: ProcessIdentity[] = [];
    afterEach(() => doomed.splice(0).forEach(killIfRunning));

    it('leaves no session process alive: each sandbox dies with its parent', async () => {
      const c = await connectApprovalClient(ws.dir);
      const holder = 'sleep 1000 & nohup sleep 1001 >/dev/null 2>&1 & setsid sleep 1002 & exec sleep 1003';
      for (const tty of [true, false]) {
        for (let i = 0; i < 2; i++) {
          const r = await c.call('exec_command', { cmd: holder, tty, login: false, yield_time_ms: 1000 });
          expect(textOf(r)).toContain('Process running with session ID');
        }
      }
      const tree = (pid: number): number[] => childrenOf(pid).flatMap((child) => [child, ...tree(child)]);
      const everything = tree(c.pid);
      const watchdogs = everything.filter((pid) => commandLineOf(pid).includes('watchdog.mjs'));
      const sessions = everything.filter(
        (pid) => !watchdogs.includes(pid) && !commandLineOf(pid).includes('watchdog.mjs'),
      );
      expect(watchdogs).toHaveLength(1);
      expect(sessions.length).toBeGreaterThanOrEqual(4 * 6); // bwrap, its init, and the four sleeps of each session
      doomed.push(...sessions.map(identify));
      process.kill(watchdogs[0]!, 'SIGKILL');
      process.kill(c.pid, 'SIGKILL');
      const ms = await timeUntil(() => doomed.every((p) => !survives(p)), 2_000).catch(() => Number.NaN);
      const alive = doomed.filter(survives).map((p) => `${p.pid} ${commandLineOf(p.pid)}`);
      console.log(`sandbox kill9: ${doomed.length} processes, ${alive.length} alive, all gone in ${ms.toFixed(0)} ms`);
      expect(alive).toEqual([]);
      await c.client.close().catch(() => undefined);
      // Killed, it could not remove the empty mount points its sandboxes made; the next sandbox there masks them
      // again (an empty folder counts as missing) and removes them when it ends.
      const masks = () => readdirSync(ws.dir).filter((name) => ['.agents', '.codex', '.aws'].includes(name));
      expect(masks()).toEqual(['.agents', '.aws', '.codex']);
      const next = await connectApprovalClient(ws.dir);
      expect(textOf(await next.call('exec_command', { cmd: 'true', login: false }))).toContain('exited with code 0');
      await next.client.close();
      await vi.waitFor(() => expect(masks()).toEqual([]), { timeout: 8_000 });
    });
  },
);
