import { describe, expect, it, vi } from 'vitest';
import type { UnifiedExecManager } from '../../src/index.js';
import { BASH, INTERACTIVE_BASH, rejection, useManagers } from '../helpers/manager.js';
import { PATIENT } from '../helpers/processes.js';

const newManager = useManagers();

/** Starts an interactive bash and returns its session id. */
async function startShell(manager: UnifiedExecManager): Promise<number> {
  const started = await manager.execCommand({ ...BASH, command: INTERACTIVE_BASH, tty: true, yieldTimeMs: 2_000 });
  expect(started.sessionId).toBeDefined();
  return started.sessionId!;
}

/** Types one line into a session and returns the response (generous yield; input-wait answers early). */
function type(manager: UnifiedExecManager, sessionId: number, line: string) {
  return manager.writeStdin({ sessionId, chars: `${line}\n`, yieldTimeMs: 3_000 });
}

const count = (text: string, char: string) => text.split(char).length - 1;

describe('UnifiedExecManager with an interactive shell', () => {
  it('keeps a variable exported in one write for the next write', async () => {
    const manager = newManager();
    const id = await startShell(manager);
    await type(manager, id, 'export UE_VAR=hello-41');
    const echoed = await type(manager, id, 'echo "[$UE_VAR]"');
    expect(echoed.output).toContain('[hello-41]');
    expect(echoed.sessionId).toBe(id);
    expect(echoed.exitCode).toBeUndefined();
  });

  it('isolates sessions: a new command does not see a variable another session exported', async () => {
    const manager = newManager();
    const first = await startShell(manager);
    await type(manager, first, 'export UE_VAR=only-in-first');

    const other = await manager.execCommand({ ...BASH, command: 'echo "[$UE_VAR]"', yieldTimeMs: 5_000 });
    expect(other.output).toBe('[]\n');
    expect(other.exitCode).toBe(0);
    expect(other.sessionId).toBeUndefined();

    const again = await type(manager, first, 'echo "[$UE_VAR]"');
    expect(again.output).toContain('[only-in-first]');
  });

  it('keeps output that arrives after a short yield for a later empty poll', async () => {
    const manager = newManager();
    const id = await startShell(manager);
    await type(manager, id, 'export UE_VAR=late-value');

    const quick = await manager.writeStdin({ sessionId: id, chars: 'sleep 2 && echo "[$UE_VAR]"\n', yieldTimeMs: 10 });
    expect(quick.output).not.toContain('[late-value]');
    expect(quick.sessionId).toBe(id);
    expect(quick.wallTimeSeconds).toBeLessThan(1.5);

    const later = await manager.writeStdin({ sessionId: id, chars: '', yieldTimeMs: 5_000 });
    expect(later.output).toContain('[late-value]');
    expect(later.sessionId).toBe(id);
  });

  it('reports the exit code of a shell told to exit, then forgets its id', async () => {
    const manager = newManager();
    const id = await startShell(manager);
    const exited = await manager.writeStdin({ sessionId: id, chars: 'exit\n', yieldTimeMs: 10_000 });
    expect(exited.exitCode).toBe(0);
    expect(exited.sessionId).toBeUndefined();
    expect(exited.state).toBe('exited');

    const error = await rejection(manager.writeStdin({ sessionId: id, chars: 'echo hi\n' }), 'UNKNOWN_SESSION');
    expect(error.message).toBe(`Unknown process id ${id}`);
    expect(manager.listSessions()).toEqual([]);
  });
});

describe('UnifiedExecManager on pipes and terminals', () => {
  it('reports the exit code of a command on pipes', async () => {
    const result = await newManager().execCommand({ ...BASH, command: 'echo out; exit 17' });
    expect(result).toMatchObject({ exitCode: 17, output: 'out\n', state: 'exited' });
    expect(result.sessionId).toBeUndefined();
  });

  it('reports death by SIGKILL as exit code 137', async () => {
    const result = await newManager().execCommand({ ...BASH, command: 'kill -9 $$' });
    expect(result.exitCode).toBe(137);
  });

  it('gives a command on pipes a stdin that is not a terminal', async () => {
    const result = await newManager().execCommand({
      ...BASH,
      command: "python3 -c 'import sys;print(sys.stdin.isatty())'",
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'False\n' });
  });

  it('gives a tty command a terminal as stdin', async () => {
    const result = await newManager().execCommand({
      ...BASH,
      command: "python3 -c 'import sys;print(sys.stdin.isatty())'",
      tty: true,
    });
    expect(result).toMatchObject({ exitCode: 0, output: 'True\r\n' });
  });

  it('refuses input to a pipe session with STDIN_CLOSED and keeps the session running', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...BASH, command: 'sleep 5', yieldTimeMs: 250 });
    expect(started.sessionId).toBe(1000);
    const error = await rejection(manager.writeStdin({ sessionId: 1000, chars: 'hello\n' }), 'STDIN_CLOSED');
    expect(error.message).toBe('stdin is closed for this session; rerun exec_command with tty=true to keep stdin open');
    expect(manager.listSessions().map((s) => s.sessionId)).toEqual([1000]);
  });

  it.each([false, true])(
    'answers as soon as a short command exits, long before its yield time (tty: %s)',
    async (tty) => {
      const manager = newManager();
      const before = performance.now();
      const result = await manager.execCommand({ ...BASH, command: 'sleep 0.05', yieldTimeMs: 31_415, tty });
      const elapsedSeconds = (performance.now() - before) / 1000;
      expect(result.exitCode).toBe(0);
      expect(result.sessionId).toBeUndefined();
      expect(elapsedSeconds).toBeLessThan(0.75);
      expect(result.wallTimeSeconds).toBeLessThan(0.75);
      expect(result.wallTimeSeconds).toBeGreaterThanOrEqual(0.05);
    },
  );

  it('echoes input through cat under one session id, and ends it with Ctrl-D', async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 1_000 });
    const id = started.sessionId!;
    expect(id).toBeDefined();

    const echoed = await manager.writeStdin({ sessionId: id, chars: 'hello\n', yieldTimeMs: 2_000 });
    expect(echoed.output).toContain('hello');
    expect(echoed.sessionId).toBe(id);

    const ended = await manager.writeStdin({ sessionId: id, chars: '\u0004', yieldTimeMs: 5_000 });
    expect(ended.exitCode).toBe(0);
    expect(ended.sessionId).toBeUndefined();
  });

  it.each([false, true])('keeps lagging output for a later call and loses none of it (tty: %s)', async (tty) => {
    const manager = newManager();
    const script =
      'import sys,time; sys.stdout.write("x"*200000); sys.stdout.flush(); time.sleep(1); print("TAIL-MARKER")';
    const first = await manager.execCommand({
      ...BASH,
      command: `python3 -c '${script}'`,
      tty,
      yieldTimeMs: 250,
      maxOutputTokens: 1_000_000,
    });
    expect(first.sessionId).toBeDefined();
    expect(first.output).not.toContain('TAIL-MARKER');

    const later = await manager.writeStdin({
      sessionId: first.sessionId!,
      yieldTimeMs: 10_000,
      maxOutputTokens: 1_000_000,
    });
    expect(later.output).toContain('TAIL-MARKER');
    expect(later.exitCode).toBe(0);
    expect(count(first.output + later.output, 'x')).toBe(200_000);
  });

  it('truncates long output for the model the way Codex does', async () => {
    const result = await newManager().execCommand({
      ...BASH,
      command: "yes 'token token ' | head -n 5000",
      maxOutputTokens: 100,
    });
    expect(result.exitCode).toBe(0);
    expect(result.originalTokenCount).toBe(16_250);
    expect(result.output).toMatch(
      /^Warning: truncated output \(original token count: 16250\)\nTotal output lines: 5000\n\n(token token \n){5,}.*…\d+ tokens truncated….*(token token \n){5,}$/s,
    );
    expect(result.output).toContain('…16150 tokens truncated…');
  });

  it('reports the state of a response: exited, waiting for input, or running', async () => {
    const manager = newManager();
    const done = await manager.execCommand({ ...BASH, command: 'true' });
    expect(done.state).toBe('exited');
    const sleeping = await manager.execCommand({ ...BASH, command: 'sleep 1000', tty: true, yieldTimeMs: 250 });
    expect(sleeping.state).toBe('running');
    const reading = await manager.execCommand({ ...BASH, command: 'read -r line', tty: true, yieldTimeMs: 10_000 });
    expect(reading.state).toBe('waiting_for_input');
    expect(reading.wallTimeSeconds).toBeLessThan(5);
  });
});

describe('UnifiedExecManager session bookkeeping', () => {
  it('lists live sessions with their command, terminal, pid and times', async () => {
    let now = Date.UTC(2030, 0, 1);
    const manager = newManager({ clock: () => now });
    await manager.execCommand({ ...BASH, command: 'sleep 1000', yieldTimeMs: 250 });
    now += 5_000;
    await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 250 });
    const sessions = manager.listSessions();
    expect(sessions).toMatchObject([
      { sessionId: 1000, command: 'sleep 1000', tty: false, exited: false, startedAt: new Date(Date.UTC(2030, 0, 1)) },
      {
        sessionId: 1001,
        command: 'cat',
        tty: true,
        exited: false,
        startedAt: new Date(now),
        lastUsedAt: new Date(now),
      },
    ]);
    for (const session of sessions) expect(session.pid).toBeGreaterThan(1);
  });

  it('closes a session on request, after which its id is unknown', async () => {
    const manager = newManager();
    await manager.execCommand({ ...BASH, command: 'sleep 1000', yieldTimeMs: 250 });
    expect(await manager.closeSession(1000)).toEqual({ sessionId: 1000, exitCode: expect.any(Number) });
    expect(manager.listSessions()).toEqual([]);
    await rejection(manager.writeStdin({ sessionId: 1000 }), 'UNKNOWN_SESSION');
    await rejection(manager.closeSession(1000), 'UNKNOWN_SESSION');
  });

  it('refuses every call after shutdown, and can be shut down twice', async () => {
    const manager = newManager();
    await manager.execCommand({ ...BASH, command: 'sleep 1000', yieldTimeMs: 250 });
    await manager.shutdown();
    await manager.shutdown();
    expect(manager.listSessions()).toEqual([]);
    await rejection(manager.execCommand({ ...BASH, command: 'echo hi' }), 'SHUT_DOWN');
    await rejection(manager.writeStdin({ sessionId: 1000 }), 'SHUT_DOWN');
  });

  it('serves concurrent calls on one session one after another, without mixing their output', async () => {
    const manager = newManager();
    const id = (await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 500 })).sessionId!;
    const [a, b] = await Promise.all([
      manager.writeStdin({ sessionId: id, chars: 'first-line\n', yieldTimeMs: 2_000 }),
      manager.writeStdin({ sessionId: id, chars: 'second-line\n', yieldTimeMs: 2_000 }),
    ]);
    expect(a.output).toContain('first-line');
    expect(a.output).not.toContain('second-line');
    expect(b.output).toContain('second-line');
  });
});

describe('UnifiedExecManager with bad arguments', () => {
  it('answers each bad call with the right code and an actionable message, and keeps working', async () => {
    const manager = newManager();
    const existing = await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 500 });
    const id = existing.sessionId!;

    const missing = await rejection(manager.execCommand({} as never), 'INVALID_ARGUMENT');
    expect(missing.message).toBe('Invalid arguments: `command`: is required');

    const empty = await rejection(manager.execCommand({ ...BASH, command: '' }), 'INVALID_ARGUMENT');
    expect(empty.message).toMatch(/`command`/);

    const badYield = await rejection(
      manager.execCommand({ ...BASH, command: 'echo hi', yieldTimeMs: 'abc' as never }),
      'INVALID_ARGUMENT',
    );
    expect(badYield.message).toBe('Invalid arguments: `yieldTimeMs`: expected a finite number, got "abc" (string)');

    const unknown = await rejection(manager.writeStdin({ sessionId: 424242, chars: 'x' }), 'UNKNOWN_SESSION');
    expect(unknown.message).toBe('Unknown process id 424242');

    const noDir = await rejection(
      manager.execCommand({ ...BASH, command: 'pwd', cwd: '/no/such/dir' }),
      'SPAWN_FAILED',
    );
    expect(noDir.message).toMatch(/^Failed to create unified exec process: .*\/no\/such\/dir/);
    expect(noDir.message).toContain('workdir');

    const noShell = await rejection(
      manager.execCommand({ command: 'echo hi', shell: '/no/such/shell' }),
      'SPAWN_FAILED',
    );
    expect(noShell.message).toMatch(/^Failed to create unified exec process: .*\/no\/such\/shell/);

    const ok = await manager.execCommand({ ...BASH, command: 'echo ok' });
    expect(ok).toMatchObject({ exitCode: 0, output: 'ok\n' });

    expect(manager.listSessions().map((s) => s.sessionId)).toEqual([id]);
    const stillThere = await manager.writeStdin({ sessionId: id, chars: 'untouched\n', yieldTimeMs: 2_000 });
    expect(stillThere.output).toContain('untouched');
    expect(stillThere.sessionId).toBe(id);
  });

  it('resolves a relative workdir against the manager cwd', async () => {
    const manager = newManager({ cwd: '/usr' });
    const result = await manager.execCommand({ ...BASH, command: 'pwd', cwd: 'bin' });
    expect(result.output).toBe('/usr/bin\n');
    const defaulted = await manager.execCommand({ ...BASH, command: 'pwd', cwd: '' });
    expect(defaulted.output).toBe('/usr\n');
  });

  it('refuses a write larger than the write limit with LIMIT_EXCEEDED and keeps the session', async () => {
    const manager = newManager({ maxWriteBytes: 1_000 });
    const id = (await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 500 })).sessionId!;
    const error = await rejection(manager.writeStdin({ sessionId: id, chars: 'x'.repeat(1_001) }), 'LIMIT_EXCEEDED');
    expect(error.message).toContain('1001 bytes');
    const echoed = await manager.writeStdin({ sessionId: id, chars: 'fits\n', yieldTimeMs: 2_000 });
    expect(echoed.output).toContain('fits');
  });

  it('warns when a written line is longer than a canonical-mode terminal keeps', async () => {
    const manager = newManager();
    const id = (await manager.execCommand({ ...BASH, command: 'cat', tty: true, yieldTimeMs: 500 })).sessionId!;
    const long = await manager.writeStdin({ sessionId: id, chars: `${'y'.repeat(5_000)}\n`, yieldTimeMs: 2_000 });
    expect(long.warnings).toEqual([
      expect.stringMatching(/^Warning: a line of 5000 bytes was written to a terminal in canonical mode/),
    ]);
    const short = await manager.writeStdin({ sessionId: id, chars: 'short\n', yieldTimeMs: 2_000 });
    expect(short.warnings).toEqual([]);
  });

  it('refuses new sessions while the others hold too much unread output, until it is read', async () => {
    const manager = newManager({ maxTotalBufferedBytes: 4_000 });
    const noisy = await manager.execCommand({
      ...BASH,
      command: "sleep 0.3; head -c 5000 /dev/zero | tr '\\0' b; read -r",
      tty: true,
      yieldTimeMs: 250,
    });
    const id = noisy.sessionId!;
    await vi.waitFor(() => expect(manager.listSessions()[0]?.bufferedBytes).toBe(5_000), PATIENT);

    const refused = await rejection(manager.execCommand({ ...BASH, command: 'echo hi' }), 'LIMIT_EXCEEDED');
    expect(refused.message).toMatch(/unread output/);
    expect(manager.listSessions().map((s) => s.sessionId)).toEqual([id]);

    const read = await manager.writeStdin({ sessionId: id, yieldTimeMs: 5_000, maxOutputTokens: 10_000 });
    expect(count(read.output, 'b')).toBe(5_000);
    expect(await manager.execCommand({ ...BASH, command: 'echo hi' })).toMatchObject({ exitCode: 0, output: 'hi\n' });
  });
});
