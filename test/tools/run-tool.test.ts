import { afterAll, describe, expect, it } from 'vitest';
import { UnifiedExecError } from '../../src/manager/errors.js';
import { UnifiedExecManager } from '../../src/manager/manager.js';
import type { ExecResponse, SessionInfo } from '../../src/manager/types.js';
import { callTool, type ExecSessions } from '../../src/tools/run-tool.js';
import { newManager } from '../helpers/manager.js';

const COMPAT_ECHO =
  /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello\n$/;

/** Records the camelCase requests the tools layer makes, and answers with canned responses. */
function recordingSessions(response: Partial<ExecResponse> = {}) {
  const calls: Array<[string, unknown]> = [];
  // A test may turn the running reply into an exited one: the spread is no longer checked as either.
  const reply = {
    chunkId: 'a1b2c3',
    wallTimeSeconds: 0.25,
    output: 'out',
    originalTokenCount: 1,
    sessionId: 1234,
    state: 'running',
    warnings: [],
    ...response,
  } as ExecResponse;
  const sessions: ExecSessions = {
    execCommand: async (request) => (calls.push(['execCommand', request]), reply),
    writeStdin: async (request) => (calls.push(['writeStdin', request]), reply),
    listSessions: () => [],
    closeSession: async (id) => (calls.push(['closeSession', id]), { sessionId: id, exitCode: 143 }),
  };
  return { sessions, calls };
}

describe('callTool with a real manager', () => {
  const manager = new UnifiedExecManager();
  afterAll(() => manager.shutdown());

  it('runs exec_command and answers with the compat text and snake_case fields', async () => {
    const outcome = await callTool(manager, 'exec_command', { cmd: 'echo hello' });
    expect(outcome.isError).toBe(false);
    if (outcome.isError) return;
    expect(outcome.text).toMatch(COMPAT_ECHO);
    expect(outcome.structured).toEqual({
      chunk_id: expect.stringMatching(/^[0-9a-f]{6}$/),
      wall_time_seconds: expect.any(Number),
      output: 'hello\n',
      original_token_count: 2,
      exit_code: 0,
      state: 'exited',
    });
  });

  it('prefixes errors the way Codex does', async () => {
    const unknown = await callTool(manager, 'write_stdin', { session_id: 424242 });
    expect(unknown).toMatchObject({
      isError: true,
      text: 'write_stdin failed: Unknown process id 424242',
      code: 'UNKNOWN_SESSION',
    });
    const close = await callTool(manager, 'close_session', { session_id: 424242 });
    expect(close).toMatchObject({ isError: true, text: 'close_session failed: Unknown process id 424242' });
    const spawn = await callTool(manager, 'exec_command', { cmd: 'true', shell: '/no/such/shell' });
    expect(spawn).toMatchObject({ isError: true, code: 'SPAWN_FAILED' });
    expect(spawn.text).toMatch(/^exec_command failed for `true`: Failed to create unified exec process: /);
  });

  it('reports STDIN_CLOSED when typing into a session without a terminal', async () => {
    const started = await callTool(manager, 'exec_command', { cmd: 'sleep 30', yield_time_ms: 250 });
    if (started.isError || !('session_id' in started.structured)) throw new Error('expected a live session');
    const id = started.structured.session_id;
    const typed = await callTool(manager, 'write_stdin', { session_id: id, chars: 'x' });
    expect(typed).toMatchObject({ isError: true, code: 'STDIN_CLOSED' });
    expect(typed.text).toMatch(/^write_stdin failed: stdin is closed for this session/);
    const closed = await callTool(manager, 'close_session', { session_id: id });
    expect(closed).toMatchObject({ isError: false, structured: { session_id: id } });
    expect(closed.text).toMatch(new RegExp(`^Session ID ${id} closed`));
  });
});

describe('callTool with arguments as a JSON string, as OpenAI hands them over', () => {
  const manager = newManager();
  afterAll(() => manager.shutdown());

  it('runs exec_command from a JSON string on a real manager', async () => {
    const toolCallArguments = JSON.stringify({ cmd: 'echo hi', login: false, shell: '/bin/bash' });
    const outcome = await callTool(manager, 'exec_command', toolCallArguments);
    expect(outcome).toMatchObject({ isError: false, structured: { exit_code: 0, output: 'hi\n', state: 'exited' } });
  });

  it('hands the manager the same request as the object form would', async () => {
    const args = { cmd: 'ls', workdir: 'src', tty: true, yield_time_ms: 500 };
    const fromObject = recordingSessions();
    const fromString = recordingSessions();
    await callTool(fromObject.sessions, 'exec_command', args);
    await callTool(fromString.sessions, 'exec_command', JSON.stringify(args));
    await callTool(fromObject.sessions, 'write_stdin', { session_id: 5, chars: 'y\n' });
    await callTool(fromString.sessions, 'write_stdin', '{"session_id": "5", "chars": "y\\n"}');
    expect(fromString.calls).toHaveLength(2);
    expect(fromString.calls).toEqual(fromObject.calls);
  });

  it('refuses a string that is not JSON with INVALID_ARGUMENT, without calling the manager', async () => {
    const { sessions, calls } = recordingSessions();
    const outcome = await callTool(sessions, 'exec_command', '{"cmd": "ls"');
    expect(outcome).toMatchObject({ isError: true, code: 'INVALID_ARGUMENT' });
    expect(outcome.text).toMatch(/^exec_command failed: Invalid arguments: not valid JSON/);
    const notAnObject = await callTool(sessions, 'exec_command', '"ls"');
    expect(notAnObject.text).toBe('exec_command failed: Invalid arguments: expected an object, got "ls" (string)');
    expect(calls).toEqual([]);
  });

  it('takes an empty string as no arguments', async () => {
    const { sessions, calls } = recordingSessions();
    expect(await callTool(sessions, 'list_sessions', '')).toMatchObject({
      isError: false,
      text: 'No sessions are open.',
      structured: { sessions: [] },
    });
    for (const empty of ['', '  \n']) {
      expect(await callTool(sessions, 'exec_command', empty)).toMatchObject({
        isError: true,
        code: 'INVALID_ARGUMENT',
        text: 'exec_command failed: Invalid arguments: `cmd`: is required',
      });
    }
    expect(calls).toEqual([]);
  });
});

describe('callTool argument handling', () => {
  it("maps snake_case arguments, defaults filled in, to the manager's camelCase requests (cmd and workdir as command and cwd)", async () => {
    const { sessions, calls } = recordingSessions();
    await callTool(sessions, 'exec_command', {
      cmd: 'ls',
      workdir: 'src',
      shell: '/bin/sh',
      login: false,
      tty: true,
      yield_time_ms: 500,
      max_output_tokens: 7,
    });
    await callTool(sessions, 'exec_command', { cmd: 'ls' });
    await callTool(sessions, 'write_stdin', { session_id: 5, chars: 'y\n', yield_time_ms: 300, max_output_tokens: 9 });
    await callTool(sessions, 'write_stdin', { session_id: 5 });
    await callTool(sessions, 'close_session', { session_id: 5 });
    expect(calls).toEqual([
      [
        'execCommand',
        {
          command: 'ls',
          cwd: 'src',
          shell: '/bin/sh',
          login: false,
          tty: true,
          yieldTimeMs: 500,
          maxOutputTokens: 7,
          sandboxPermissions: 'use_default',
        },
      ],
      [
        'execCommand',
        {
          command: 'ls',
          cwd: undefined,
          shell: undefined,
          login: true,
          tty: false,
          yieldTimeMs: 10_000,
          maxOutputTokens: 10_000,
          sandboxPermissions: 'use_default',
        },
      ],
      ['writeStdin', { sessionId: 5, chars: 'y\n', yieldTimeMs: 300, maxOutputTokens: 9 }],
      ['writeStdin', { sessionId: 5, chars: '', yieldTimeMs: 250, maxOutputTokens: 10_000 }],
      ['closeSession', 5],
    ]);
  });

  it('passes a request to leave the sandbox, and its justification, on to the manager', async () => {
    const { sessions, calls } = recordingSessions();
    await callTool(sessions, 'exec_command', {
      cmd: 'curl example.com',
      sandbox_permissions: 'require_escalated',
      justification: 'Fetches the page the user asked about.',
    });
    expect(calls[0]?.[1]).toMatchObject({
      sandboxPermissions: 'require_escalated',
      justification: 'Fetches the page the user asked about.',
    });
    const wrong = await callTool(sessions, 'exec_command', { cmd: 'ls', sandbox_permissions: 'root' });
    expect(wrong.text).toBe(
      'exec_command failed for `ls`: Invalid arguments: `sandbox_permissions`: expected "use_default" or "require_escalated", got "root" (string)',
    );
    expect(calls).toHaveLength(1);
  });

  it('caps max_output_tokens at 10000, as Codex clamps it, whatever the model asked for', async () => {
    const { sessions, calls } = recordingSessions();
    await callTool(sessions, 'exec_command', { cmd: 'ls', max_output_tokens: 70_000 });
    await callTool(sessions, 'write_stdin', { session_id: 5, max_output_tokens: 1e308 });
    await callTool(sessions, 'write_stdin', { session_id: 5, max_output_tokens: 9_999 });
    expect(calls.map(([, request]) => (request as { maxOutputTokens: number }).maxOutputTokens)).toEqual([
      10_000, 10_000, 9_999,
    ]);
  });

  it('carries state, secret_prompt and warnings into the structured result', async () => {
    const warning =
      'Warning: The maximum number of unified exec processes you can keep open is 60 and you currently have 61 processes open. Reuse older processes or close them to prevent automatic pruning of old processes';
    const { sessions } = recordingSessions({ state: 'waiting_for_input', secretPrompt: true, warnings: [warning] });
    const outcome = await callTool(sessions, 'write_stdin', { session_id: 1234 });
    expect(outcome).toMatchObject({
      isError: false,
      structured: { session_id: 1234, state: 'waiting_for_input', secret_prompt: true, warnings: [warning] },
    });
    // The text is Codex's unless the caller asks for our state lines.
    expect(outcome.text).toContain('Process running with session ID 1234\nOriginal token count:');
    const withLines = await callTool(sessions, 'write_stdin', { session_id: 1234 }, undefined, { stateLines: true });
    expect(withLines.text).toContain(
      'Process running with session ID 1234\nProcess is waiting for input\nTerminal echo is off (password prompt)\n',
    );
    expect(outcome.text).toContain(`${warning}\nOutput:\nout`);
    if (!outcome.isError) expect(outcome.structured).not.toHaveProperty('exit_code');
  });

  it('says which field is wrong, without calling the manager', async () => {
    const { sessions, calls } = recordingSessions();
    const missing = await callTool(sessions, 'exec_command', {});
    expect(missing).toMatchObject({ isError: true, code: 'INVALID_ARGUMENT' });
    expect(missing.text).toMatch(/^exec_command failed: Invalid arguments: `cmd`: /);
    const wrongType = await callTool(sessions, 'write_stdin', { session_id: 'abc' });
    expect(wrongType.text).toMatch(
      /^write_stdin failed: Invalid arguments: `session_id`: expected a positive integer, got "abc" \(string\)$/,
    );
    const notObject = await callTool(sessions, 'close_session', [7]);
    expect(notObject.text).toBe('close_session failed: Invalid arguments: expected an object, got [7] (array)');
    expect(calls).toEqual([]);
  });

  it('names the tools when asked for one that does not exist', async () => {
    const { sessions } = recordingSessions();
    const outcome = await callTool(sessions, 'rm_rf', {});
    expect(outcome).toMatchObject({ isError: true, code: 'INVALID_ARGUMENT' });
    expect(outcome.text).toBe(
      'Tool rm_rf not found; the tools are exec_command, write_stdin, list_sessions, close_session',
    );
  });

  it('turns an unexpected exception into a tool error with INTERNAL_ERROR', async () => {
    const { sessions } = recordingSessions();
    sessions.listSessions = () => {
      throw new TypeError('boom');
    };
    expect(await callTool(sessions, 'list_sessions', {})).toMatchObject({
      isError: true,
      code: 'INTERNAL_ERROR',
      text: 'list_sessions failed: boom',
    });
    sessions.listSessions = () => {
      throw new UnifiedExecError('SHUT_DOWN', 'gone');
    };
    expect(await callTool(sessions, 'list_sessions', undefined)).toMatchObject({
      code: 'SHUT_DOWN',
      text: 'list_sessions failed: gone',
    });
  });

  it('renders list_sessions as one line per session and structured rows', async () => {
    const { sessions } = recordingSessions();
    const info: SessionInfo[] = [
      {
        sessionId: 11,
        command: 'bash -i',
        tty: true,
        pid: 100,
        startedAt: new Date(0),
        lastUsedAt: new Date(1000),
        executor: 'local',
        location: 'local',
        exited: false,
        bufferedBytes: 3,
      },
      {
        sessionId: 12,
        command: 'make\nmake test',
        tty: false,
        startedAt: new Date(0),
        lastUsedAt: new Date(0),
        executor: 'box',
        location: 'docker://web-1',
        exited: true,
        exitCode: 2,
        bufferedBytes: 0,
      },
    ];
    sessions.listSessions = () => info;
    const outcome = await callTool(sessions, 'list_sessions', {});
    expect(outcome).toMatchObject({
      isError: false,
      structured: {
        sessions: [
          {
            session_id: 11,
            command: 'bash -i',
            tty: true,
            pid: 100,
            started_at: '1970-01-01T00:00:00.000Z',
            last_used_at: '1970-01-01T00:00:01.000Z',
            exited: false,
            buffered_bytes: 3,
          },
          {
            session_id: 12,
            command: 'make\nmake test',
            tty: false,
            executor: 'box',
            location: 'docker://web-1',
            started_at: '1970-01-01T00:00:00.000Z',
            last_used_at: '1970-01-01T00:00:00.000Z',
            exited: true,
            exit_code: 2,
            buffered_bytes: 0,
          },
        ],
      },
    });
    // A session elsewhere has no pid on this machine: none is made up.
    if (!outcome.isError) expect(outcome.structured.sessions[1]).not.toHaveProperty('pid');
    expect(outcome.text.split('\n')).toEqual([
      'Open sessions: 2',
      'Session ID 11: running; tty; pid 100; started 1970-01-01T00:00:00.000Z; last used 1970-01-01T00:00:01.000Z; 3 bytes of output waiting; command: bash -i',
      'Session ID 12: exited with code 2 (read its last output with write_stdin); no tty; on box (docker://web-1); started 1970-01-01T00:00:00.000Z; last used 1970-01-01T00:00:00.000Z; 0 bytes of output waiting; command: make…',
    ]);
    sessions.listSessions = () => [];
    expect((await callTool(sessions, 'list_sessions', {})).text).toBe('No sessions are open.');
  });
});
