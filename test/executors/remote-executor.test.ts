// The remote executor against both exec-servers it must work with: ours (`unified-exec exec-server`) and the real
// `codex exec-server`. Real servers, real processes, a real WebSocket; a TCP relay in between breaks the connection
// on purpose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecServerClient } from '../../src/executors/exec-server-client.js';
import { RemoteExecutor } from '../../src/executors/remote.js';
import { codexSkipReason } from '../codex/codex-install.js';
import { startOurExecServer } from '../codex/our-exec-server.js';
import { startRealExecServer } from '../codex/real-exec-server.js';
import type { RunningServer } from '../codex/ws-server-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { useManagers } from '../helpers/manager.js';

const BASH = { shell: '/bin/bash', login: false } as const;
const codexMissing = codexSkipReason();

const SERVERS = [
  { name: 'our exec-server', start: () => startOurExecServer(), ours: true, skip: undefined },
  { name: 'codex exec-server', start: () => startRealExecServer(), ours: false, skip: codexMissing },
] as const;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const kind of SERVERS) {
  describe.skipIf(kind.skip !== undefined)(
    `remote executor on the ${kind.name}${kind.skip ? ` (skipped: ${kind.skip})` : ''}`,
    { timeout: 30_000 },
    () => {
      let server: RunningServer;
      const manager = useManagers();
      beforeAll(async () => {
        server = await kind.start();
      }, 30_000);
      afterAll(async () => {
        await server?.stop();
      });
      /** The token our server wants (Codex's runs without one). */
      const auth = () => (server.token === undefined ? {} : { token: server.token });
      /** A manager whose only executor is that server, under the name `box`. */
      const remote = () => manager({ executors: { box: server.executorUrl }, sandbox: 'danger-full-access' });

      it('runs a command there and answers as a local one would; list_sessions says where', async () => {
        const m = remote();
        const r = await m.execCommand({ command: 'echo hello; echo oops >&2; exit 3', ...BASH });
        expect(r).toMatchObject({ exitCode: 3, state: 'exited' });
        expect(r.output).toContain('hello\n');
        expect(r.output).toContain('oops\n');
        const live = await m.execCommand({ command: 'sleep 30', ...BASH, yieldTimeMs: 250 });
        expect(live.sessionId).toBeDefined();
        const [listed] = m.listSessions();
        expect(listed).toMatchObject({ executor: 'box', location: server.url, exited: false });
        expect(listed).not.toHaveProperty('pid');
      });

      it('keeps the output of commands over before the server has answered their start', async () => {
        const m = remote();
        // A quick command's output, exit and close can all come before the reply to process/start.
        for (let i = 0; i < 20; i++) {
          const r = await m.execCommand({ command: `echo quick-${i}`, ...BASH });
          expect(r).toMatchObject({ exitCode: 0, output: `quick-${i}\n` });
        }
      });

      it('builds the environment on the server from the policy, with the session variables', async () => {
        const m = remote();
        // Set here after the server started: a variable of this process only must not travel.
        process.env.UE_REMOTE_TEST_LOCAL_ONLY = 'here';
        try {
          const r = await m.execCommand({
            command:
              'echo "TERM=$TERM NO_COLOR=$NO_COLOR PAGER=$PAGER local=${UE_REMOTE_TEST_LOCAL_ONLY:-absent} home=$HOME"',
            ...BASH,
          });
          expect(r.output).toContain('TERM=dumb NO_COLOR=1 PAGER=cat local=absent home=/');
        } finally {
          delete process.env.UE_REMOTE_TEST_LOCAL_ONLY;
        }
        const set = manager({
          executors: { box: server.executorUrl },
          sandbox: 'danger-full-access',
          env: { set: { GREETING: 'from-policy' } },
        });
        expect((await set.execCommand({ command: 'echo $GREETING', ...BASH })).output).toBe('from-policy\n');
      });

      it('runs in the server’s working directory unless the call names one', async () => {
        const m = remote();
        const here = await m.execCommand({ command: 'pwd', ...BASH });
        expect(here.output.trim()).toMatch(/^\//);
        expect((await m.execCommand({ command: 'pwd', cwd: '/usr/bin', ...BASH })).output).toBe('/usr/bin\n');
        expect((await m.execCommand({ command: 'pwd', cwd: '..', ...BASH })).output.trim()).not.toBe(
          here.output.trim(),
        );
        const missing = m.execCommand({ command: 'pwd', cwd: '/no/such/dir', ...BASH });
        await expect(missing).rejects.toMatchObject({ code: 'SPAWN_FAILED' });
        await expect(missing).rejects.toThrow(/exec-server at ws:\/\/127\.0\.0\.1:\d+ could not start it/);
      });

      it('types into a tty session there; with our server it answers when the program waits for input', async () => {
        const m = remote();
        const started = await m.execCommand({ command: 'python3 -q -i', tty: true, ...BASH, yieldTimeMs: 3_000 });
        expect(started.sessionId).toBeDefined();
        const reply = await m.writeStdin({ sessionId: started.sessionId!, chars: 'print(6*7)\n', yieldTimeMs: 3_000 });
        expect(reply.output).toContain('42');
        if (kind.ours) {
          expect(started.state).toBe('waiting_for_input');
          expect(reply.state).toBe('waiting_for_input');
          expect(reply.wallTimeSeconds).toBeLessThan(2);
          const secret = await m.writeStdin({
            sessionId: started.sessionId!,
            chars: 'import getpass; getpass.getpass("pw: ")\n',
            yieldTimeMs: 3_000,
          });
          expect(secret).toMatchObject({ state: 'waiting_for_input', secretPrompt: true });
          expect(secret.output).toContain('pw: ');
          const answered = await m.writeStdin({
            sessionId: started.sessionId!,
            chars: 'hunter2\n',
            yieldTimeMs: 3_000,
          });
          expect(answered.output).toContain("'hunter2'");
          expect(answered.output).not.toContain('hunter2\r\n'); // no echo while it was asked
        } else {
          // Codex's server reports nothing about input: the deadline answers, as Codex itself does.
          expect(reply.state).toBe('running');
          expect(reply.wallTimeSeconds).toBeGreaterThanOrEqual(2.9);
        }
        const bye = await m.writeStdin({ sessionId: started.sessionId!, chars: '\u0004', yieldTimeMs: 3_000 });
        expect(bye).toMatchObject({ state: 'exited', exitCode: 0 });
      });

      it('close_session ends the program and what it started on the server', async () => {
        const m = remote();
        const r = await m.execCommand({
          command: 'sleep 300 & echo BG=$!; echo LEADER=$$; wait',
          ...BASH,
          yieldTimeMs: 500,
        });
        const background = Number(/BG=(\d+)/.exec(r.output)?.[1]);
        const leader = Number(/LEADER=(\d+)/.exec(r.output)?.[1]);
        // Both servers run on this machine in these tests, so their pids can be checked from here.
        expect(isRunning(background) && isRunning(leader)).toBe(true);
        await m.closeSession(r.sessionId!);
        await expect.poll(() => isRunning(background) || isRunning(leader), { timeout: 5_000 }).toBe(false);
      });

      it.each([true, false])(
        'carries every byte value a program prints, in order (binaryOutput %s: ours sends binary frames if asked)',
        async (binaryOutput) => {
          const executor = new RemoteExecutor({ url: server.url, ...auth(), binaryOutput });
          try {
            const size = 3 * 1024 * 1024 + 77;
            const proc = await executor.spawn({
              argv: [
                'python3',
                '-c',
                `import sys; sys.stdout.buffer.write(bytes(range(256)) * ${size >> 8} + bytes(range(${size & 255})))`,
              ],
              cwd: '',
              env: { PATH: '/usr/bin:/bin' },
              tty: false,
            });
            const chunks: Buffer[] = [];
            proc.onData((chunk) => chunks.push(chunk));
            await proc.outputDone;
            const got = Buffer.concat(chunks);
            expect(got.length).toBe(size);
            expect(got.equals(Buffer.from(Array.from({ length: size }, (_, i) => i % 256)))).toBe(true);
            // Only our server says yes, and only when asked (the connection is private: read for this check).
            const { connection } = executor as unknown as { connection: ExecServerClient };
            expect(connection.serverInfo?.unifiedExec?.binaryOutput ?? false).toBe(kind.ours && binaryOutput);
          } finally {
            await executor.close();
          }
        },
      );

      it('loses no output when the connection drops and comes back', async () => {
        const proxy = await TcpProxy.start(server.url);
        const executor = new RemoteExecutor({ url: proxy.url(), ...auth(), pingIntervalMs: 200 });
        const m = manager({ executor, sandbox: 'danger-full-access' });
        try {
          const r = await m.execCommand({
            command: 'for i in $(seq 1 30); do echo line-$i; sleep 0.05; done',
            ...BASH,
            yieldTimeMs: 300,
          });
          expect(r.sessionId).toBeDefined();
          await proxy.down();
          await new Promise((resolve) => setTimeout(resolve, 800)); // it prints on while nobody listens
          await proxy.up();
          let output = r.output;
          for (let i = 0; i < 20; i++) {
            const polled = await m.writeStdin({ sessionId: r.sessionId!, yieldTimeMs: 5_000 });
            output += polled.output;
            if (polled.state === 'exited') {
              expect(polled.exitCode).toBe(0);
              break;
            }
          }
          const lines = output.split('\n').filter((line) => line.startsWith('line-'));
          expect(lines).toEqual(Array.from({ length: 30 }, (_, i) => `line-${i + 1}`));
        } finally {
          await executor.close();
          await proxy.down();
        }
      });

      // Resuming is our exec-server's extension: Codex's has no session to take over.
      if (kind.ours)
        it('a resume takes the session over from a connection that went dead silently', async () => {
          const proxy = await TcpProxy.start(server.url);
          const executor = new RemoteExecutor({ url: proxy.url(), ...auth(), pingIntervalMs: 200 });
          const m = manager({ executor, sandbox: 'danger-full-access' });
          try {
            const r = await m.execCommand({
              command: 'for i in $(seq 1 20); do echo line-$i; sleep 0.05; done',
              ...BASH,
              yieldTimeMs: 300,
            });
            // Nothing passes either way and nothing is closed: the server still holds the old connection when the
            // client comes back, and must find out it is dead rather than refuse the resume.
            proxy.freeze();
            let output = r.output;
            for (let i = 0; i < 20; i++) {
              const polled = await m.writeStdin({ sessionId: r.sessionId!, yieldTimeMs: 5_000 });
              output += polled.output;
              if (polled.state === 'exited') break;
            }
            expect(output.split('\n').filter((line) => line.startsWith('line-'))).toEqual(
              Array.from({ length: 20 }, (_, i) => `line-${i + 1}`),
            );
            expect(executor.reconnections).toBe(1);
          } finally {
            await executor.close();
            await proxy.down();
          }
        });

      it('a server that stays gone ends its sessions with a clear reason', async () => {
        const proxy = await TcpProxy.start(server.url);
        const executor = new RemoteExecutor({ url: proxy.url(), ...auth(), pingIntervalMs: 200, giveUpAfterMs: 1_000 });
        const m = manager({ executor, sandbox: 'danger-full-access' });
        try {
          const r = await m.execCommand({ command: 'echo before; sleep 60', ...BASH, yieldTimeMs: 500 });
          expect(r.output).toContain('before');
          await proxy.down();
          const after = await m.writeStdin({ sessionId: r.sessionId!, yieldTimeMs: 5_000 });
          expect(after).toMatchObject({ state: 'exited', exitCode: 137 });
          expect(after.warnings.join('\n')).toMatch(
            /Lost the exec-server at ws:\/\/127\.0\.0\.1:\d+: unreachable for 1 s/,
          );
          // A new call tries the server again, and says plainly that it cannot be reached.
          const again = m.execCommand({ command: 'echo hi', ...BASH });
          await expect(again).rejects.toMatchObject({ code: 'SPAWN_FAILED' });
          await expect(again).rejects.toThrow(/cannot reach the exec-server at ws:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
        } finally {
          await executor.close();
          await proxy.down();
        }
      });
    },
  );
}
