import { describe, expect, it } from 'vitest';
import type { ShellRequest } from '../../src/manager/requests.js';
import { ALL_TOOL_NAMES, TOOL_NAMES } from '../../src/tools/definitions.js';
import { callTool } from '../../src/tools/run-tool.js';
import { sessionsWithoutShell, shellSessions } from '../helpers/shell-sessions.js';

/** `shell` is offered only when named: these calls offer it beside the four session tools. */
const WITH_SHELL = ALL_TOOL_NAMES;

/** Sessions whose shell records the camelCase requests it gets and answers with a canned success. */
function recordingShell() {
  const requests: ShellRequest[] = [];
  const sessions = shellSessions(async (request) => {
    requests.push(request);
    return { exitCode: 0, output: 'ok\n', durationMs: 40, timedOut: false };
  });
  return { sessions, requests };
}

describe('callTool shell, running a real process', () => {
  const sessions = shellSessions();

  it("answers a non-zero exit in Codex's JSON, with the output", async () => {
    const outcome = await callTool(sessions, 'shell', { command: ['bash', '-c', 'echo hi; exit 3'] }, WITH_SHELL);
    expect(outcome.isError).toBe(false);
    if (outcome.isError) return;
    expect(outcome.text).toMatch(/^\{"output":"hi\\n","metadata":\{"exit_code":3,"duration_seconds":\d+\.\d\}\}$/);
    expect(outcome.structured).toEqual({
      exit_code: 3,
      output: 'hi\n',
      duration_seconds: expect.any(Number),
      timed_out: false,
    });
  });

  it('runs the argv as is, without a shell, in workdir', async () => {
    const outcome = await callTool(
      sessions,
      'shell',
      { command: ['printf', '%s|', '$HOME', 'a b'], workdir: '/' },
      WITH_SHELL,
    );
    expect(outcome).toMatchObject({ isError: false, structured: { exit_code: 0, output: '$HOME|a b|' } });
    const pwd = await callTool(sessions, 'shell', { command: ['pwd'], workdir: '/tmp' }, WITH_SHELL);
    expect(pwd).toMatchObject({ structured: { output: '/tmp\n' } });
  });

  it('kills a command at timeout_ms and says so, with what it printed before', async () => {
    const outcome = await callTool(
      sessions,
      'shell',
      {
        command: ['bash', '-c', 'echo before; sleep 30'],
        timeout_ms: 500,
      },
      WITH_SHELL,
    );
    if (outcome.isError) throw new Error(outcome.text);
    expect(outcome.structured).toMatchObject({ exit_code: 124, timed_out: true });
    expect(outcome.structured.output).toMatch(/^command timed out after \d+ milliseconds\nbefore\n$/);
    expect(JSON.parse(outcome.text)).toMatchObject({ metadata: { exit_code: 124 } });
  });

  it('fails with SPAWN_FAILED when the program does not exist', async () => {
    const outcome = await callTool(sessions, 'shell', { command: ['no-such-program-xyz', 'a'] }, WITH_SHELL);
    expect(outcome).toMatchObject({ isError: true, code: 'SPAWN_FAILED' });
    expect(outcome.text).toMatch(/^shell failed: .*no-such-program-xyz/);
  });
});

describe('callTool shell arguments', () => {
  it('hands the sessions a camelCase request (workdir as cwd), defaults filled in', async () => {
    const { sessions, requests } = recordingShell();
    await callTool(sessions, 'shell', { command: ['ls'] }, WITH_SHELL);
    await callTool(
      sessions,
      'shell',
      {
        command: ['ls', '-la'],
        workdir: 'src',
        timeout_ms: 1500,
        sandbox_permissions: 'require_escalated',
        justification: 'needs the network',
      },
      WITH_SHELL,
    );
    await callTool(sessions, 'shell', '{"command": ["ls"], "workdir": "", "timeout_ms": null}', WITH_SHELL);
    expect(requests).toEqual([
      { command: ['ls'], sandboxPermissions: 'use_default' },
      {
        command: ['ls', '-la'],
        cwd: 'src',
        timeoutMs: 1500,
        sandboxPermissions: 'require_escalated',
        justification: 'needs the network',
      },
      { command: ['ls'], sandboxPermissions: 'use_default' },
    ]);
  });

  it('says which field is wrong, without running anything', async () => {
    const { sessions, requests } = recordingShell();
    const cases: Array<[unknown, string]> = [
      [{}, '`command`: is required'],
      [{ command: 'ls -la' }, '`command`: expected an array of strings, got "ls -la" (string)'],
      [{ command: [] }, '`command`: expected a program and its arguments, got an empty array'],
      [{ command: [' '] }, '`command`: expected a program name first, got an empty string'],
      [{ command: ['ls', 'a\u0000b'] }, '`command`: expected no NUL character (\\u0000)'],
      [{ command: ['ls'], timeout_ms: 0 }, '`timeout_ms`: expected a positive number, got 0 (number)'],
      [
        { command: ['ls'], sandbox_permissions: 'yes' },
        '`sandbox_permissions`: expected "use_default" or "require_escalated", got "yes" (string)',
      ],
    ];
    for (const [args, message] of cases) {
      expect(await callTool(sessions, 'shell', args, WITH_SHELL)).toMatchObject({
        isError: true,
        code: 'INVALID_ARGUMENT',
        text: `shell failed: Invalid arguments: ${message}`,
      });
    }
    expect(requests).toEqual([]);
  });
});

describe('which tools callTool answers', () => {
  it('offers the four session tools by default, shell only when asked for', async () => {
    const byDefault = await callTool(recordingShell().sessions, 'shell', { command: ['ls'] });
    expect(byDefault).toMatchObject({
      isError: true,
      code: 'INVALID_ARGUMENT',
      text: 'Tool shell not found; the tools are exec_command, write_stdin, list_sessions, close_session',
    });
    const unknown = await callTool(recordingShell().sessions, 'rm_rf', {}, ALL_TOOL_NAMES);
    expect(unknown.text).toBe(
      'Tool rm_rf not found; the tools are exec_command, write_stdin, list_sessions, close_session, shell',
    );
  });

  it('answers a tool left out of `offered` as unknown, listing only those offered', async () => {
    const { sessions, requests } = recordingShell();
    const outcome = await callTool(sessions, 'shell', { command: ['ls'] }, TOOL_NAMES);
    expect(outcome.text).toBe(
      'Tool shell not found; the tools are exec_command, write_stdin, list_sessions, close_session',
    );
    const onlyShell = await callTool(sessions, 'list_sessions', {}, ['shell']);
    expect(onlyShell.text).toBe('Tool list_sessions not found; the tools are shell');
    expect(requests).toEqual([]);
  });

  it('says shell is not offered when it was named but the sessions cannot run it', async () => {
    const outcome = await callTool(sessionsWithoutShell(), 'shell', { command: ['ls'] }, ALL_TOOL_NAMES);
    expect(outcome).toMatchObject({
      isError: true,
      code: 'INVALID_ARGUMENT',
      text: 'Tool shell is not offered by this server',
    });
  });
});
