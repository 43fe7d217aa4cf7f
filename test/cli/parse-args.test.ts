import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../src/cli/parse-args.js';

describe('parseCli', () => {
  it('reads help and version in their usual spellings', () => {
    for (const argv of [[], ['--help'], ['-h'], ['help'], ['serve', '--help'], ['run', '-h']]) {
      expect(parseCli(argv), argv.join(' ')).toEqual({ kind: 'help' });
    }
    expect(parseCli(['--version'])).toEqual({ kind: 'version' });
    expect(parseCli(['-v'])).toEqual({ kind: 'version' });
  });

  it('gives serve loopback, port 8765, a 30-minute idle timeout, a 30-second disconnect grace and auth by default', () => {
    expect(parseCli(['serve'])).toMatchObject({
      kind: 'serve',
      host: '127.0.0.1',
      port: 8765,
      noAuth: false,
      allowHosts: [],
      idleTimeoutS: 1800,
      disconnectGraceS: 30,
      manager: { settings: {} },
    });
  });

  it('reads serve options; the token itself is not one (it is read from a file or the environment later)', () => {
    expect(
      parseCli([
        'serve',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--token-file',
        't',
        '--no-auth',
        '--allow-host',
        'a',
        '--allow-host',
        'b',
        '--idle-timeout-s',
        '0.5',
        '--cwd',
        '/tmp',
      ]),
    ).toMatchObject({
      kind: 'serve',
      host: '0.0.0.0',
      port: 0,
      tokenFile: 't',
      noAuth: true,
      allowHosts: ['a', 'b'],
      idleTimeoutS: 0.5,
      manager: { settings: { cwd: '/tmp' } },
    });
    expect(parseCli(['serve'], { UNIFIED_EXEC_TOKEN: 'from-env' })).not.toHaveProperty('token');
  });

  it('answers with the text alone by default; --structured-output adds structuredContent, for mcp and serve', () => {
    expect(parseCli(['mcp'])).toMatchObject({ kind: 'mcp', structuredOutput: false });
    expect(parseCli(['mcp', '--structured-output'])).toMatchObject({ kind: 'mcp', structuredOutput: true });
    expect(parseCli(['serve'])).toMatchObject({ kind: 'serve', structuredOutput: false });
    expect(parseCli(['serve', '--structured-output'])).toMatchObject({ kind: 'serve', structuredOutput: true });
    // Codex's text alone unless our state lines are asked for.
    expect(parseCli(['mcp'])).toMatchObject({ stateLines: false });
    expect(parseCli(['mcp', '--state-lines'])).toMatchObject({ stateLines: true });
    expect(parseCli(['serve', '--state-lines'])).toMatchObject({ kind: 'serve', stateLines: true });
    // exec_command and write_stdin are loaded from Claude Code's first turn unless --defer-tools.
    expect(parseCli(['mcp'])).toMatchObject({ deferTools: false });
    expect(parseCli(['mcp', '--defer-tools'])).toMatchObject({ deferTools: true });
    expect(parseCli(['serve', '--defer-tools'])).toMatchObject({ kind: 'serve', deferTools: true });
  });

  it('serves the live view read-only by default; --view-input lets it type, --no-view turns it off', () => {
    expect(parseCli(['serve'])).toMatchObject({ noView: false, viewInput: false });
    expect(parseCli(['serve', '--view-input'])).toMatchObject({ noView: false, viewInput: true });
    expect(parseCli(['serve', '--no-view'])).toMatchObject({ noView: true, viewInput: false });
    expect(() => parseCli(['serve', '--no-view', '--view-input'])).toThrow(
      new UsageError('--no-view and --view-input contradict each other: give one of them'),
    );
  });

  it('joins the words after -- into one command line for run', () => {
    expect(parseCli(['run', '--', 'ls', '-la', '/tmp'])).toEqual({
      kind: 'run',
      cmd: 'ls -la /tmp',
      tty: false,
      yieldMs: 10_000,
      manager: { settings: {} },
    });
    expect(parseCli(['run', '--tty', '--yield-ms', '500', '--', 'exit 3'])).toEqual({
      kind: 'run',
      cmd: 'exit 3',
      tty: true,
      yieldMs: 500,
      manager: { settings: {} },
    });
  });

  it('says what is wrong with a bad command line, naming the flag, what it expects and what came', () => {
    const cases: Array<[string[], string | RegExp]> = [
      [['nope'], /Unknown command "nope"/],
      [['serve', '--port', '70000'], '--port: expected a port number from 0 to 65535, got "70000"'],
      [['serve', '--port', '-1'], /--port/],
      [['serve', '--token-file', ''], '--token-file: expected a file name, got ""'],
      [['serve', '--idle-timeout-s', '0'], '--idle-timeout-s: expected seconds above 0, got "0"'],
      [['run'], /run needs a command/],
      [['run', '--yield-ms', 'soon', '--', 'true'], '--yield-ms: expected milliseconds, 0 or more, got "soon"'],
      [['run', '--yield-ms', '', '--', 'true'], '--yield-ms: expected milliseconds, 0 or more, got ""'],
      [['mcp', '--port', '1'], /Unknown option '--port'/],
      [['mcp', '--return-on', 'soon'], '--return-on: expected input-wait or deadline, got "soon"'],
      [['mcp', '--max-sessions', 'x'], '--max-sessions: expected a whole number of 1 or more, got "x"'],
      [['mcp', '--max-sessions', '0'], '--max-sessions: expected a whole number of 1 or more, got "0"'],
      [['mcp', '--max-sessions', '1.5'], '--max-sessions: expected a whole number of 1 or more, got "1.5"'],
      [['mcp', '--env-inherit', 'some'], '--env-inherit: expected all, core or none, got "some"'],
      [['mcp', '--env-set', 'NOVALUE'], '--env-set: expected NAME=VALUE, got "NOVALUE"'],
      [['mcp', '--cwd', ''], '--cwd: expected a non-empty string, got ""'],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseCli(argv), argv.join(' ')).toThrow(UsageError);
      expect(() => parseCli(argv), argv.join(' ')).toThrow(message);
    }
  });

  it('refuses --token in either spelling, pointing to --token-file and UNIFIED_EXEC_TOKEN', () => {
    for (const argv of [
      ['serve', '--token', 'a-token-of-24-characters'],
      ['serve', '--port', '0', '--token=a-token-of-24-characters'],
    ]) {
      expect(() => parseCli(argv)).toThrow(UsageError);
      expect(() => parseCli(argv)).toThrow(
        /^--token is not accepted: every local user can read a command line \(\/proc\/<pid>\/cmdline\)\. .*--token-file FILE, or set UNIFIED_EXEC_TOKEN/,
      );
    }
  });

  it('limits the exec-server listener as serve: 256 connections, 5 s for headers; stdio has no listener to limit', () => {
    expect(parseCli(['exec-server'])).toEqual({
      kind: 'exec-server',
      listen: { kind: 'ws', host: '127.0.0.1', port: 0 },
      noAuth: false,
      maxConnections: 256,
      headersTimeoutS: 5,
    });
    expect(
      parseCli(['exec-server', '--listen', 'ws://[::1]:8700', '--max-connections', '16', '--headers-timeout-s', '1.5']),
    ).toMatchObject({ listen: { kind: 'ws', host: '::1', port: 8700 }, maxConnections: 16, headersTimeoutS: 1.5 });
    expect(() => parseCli(['exec-server', '--max-connections', '0'])).toThrow(
      '--max-connections: expected a whole number above 0, got "0"',
    );
    expect(() => parseCli(['exec-server', '--listen', 'stdio', '--headers-timeout-s', '2'])).toThrow(
      '--listen stdio has no listener, so no connections to limit: --headers-timeout-s is for ws:// only',
    );
  });

  it('collects the session settings every command shares, shaped as ManagerOptions', () => {
    expect(
      parseCli([
        'mcp',
        '--config',
        'ue.json',
        '--shell',
        '/bin/zsh',
        '--return-on',
        'deadline',
        '--max-sessions',
        '16',
        '--max-write-bytes',
        '4096',
        '--env-inherit',
        'core',
        '--env-keep-secrets',
        '--env-exclude',
        'AWS_*',
        '--env-exclude',
        'GH_*',
        '--env-include-only',
        'PATH',
        '--env-set',
        'A=1',
        '--env-set',
        'B=x=y',
      ]),
    ).toEqual({
      kind: 'mcp',
      tools: ['exec_command', 'write_stdin', 'list_sessions', 'close_session'],
      structuredOutput: false,
      stateLines: false,
      deferTools: false,
      manager: {
        config: 'ue.json',
        settings: {
          defaultShell: '/bin/zsh',
          returnOn: 'deadline',
          maxSessions: 16,
          maxWriteBytes: 4096,
          env: {
            inherit: 'core',
            keepSecrets: true,
            exclude: ['AWS_*', 'GH_*'],
            includeOnly: ['PATH'],
            set: { A: '1', B: 'x=y' },
          },
        },
      },
    });
  });
});
