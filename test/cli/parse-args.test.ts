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

  it('gives serve loopback, port 8765 and no token by default', () => {
    expect(parseCli(['serve'])).toEqual({ kind: 'serve', host: '127.0.0.1', port: 8765, allowHosts: [], manager: {} });
  });

  it('reads serve options, the token also from UNIFIED_EXEC_TOKEN', () => {
    expect(
      parseCli([
        'serve',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--token',
        't',
        '--allow-host',
        'a',
        '--allow-host',
        'b',
        '--cwd',
        '/tmp',
      ]),
    ).toEqual({
      kind: 'serve',
      host: '0.0.0.0',
      port: 0,
      token: 't',
      allowHosts: ['a', 'b'],
      manager: { cwd: '/tmp' },
    });
    expect(parseCli(['serve'], { UNIFIED_EXEC_TOKEN: 'from-env' })).toMatchObject({ token: 'from-env' });
    expect(parseCli(['serve', '--token', 'flag'], { UNIFIED_EXEC_TOKEN: 'env' })).toMatchObject({ token: 'flag' });
  });

  it('joins the words after -- into one command line for run', () => {
    expect(parseCli(['run', '--', 'ls', '-la', '/tmp'])).toEqual({
      kind: 'run',
      cmd: 'ls -la /tmp',
      tty: false,
      yieldMs: 10_000,
      manager: {},
    });
    expect(parseCli(['run', '--tty', '--yield-ms', '500', '--', 'exit 3'])).toEqual({
      kind: 'run',
      cmd: 'exit 3',
      tty: true,
      yieldMs: 500,
      manager: {},
    });
  });

  it('says what is wrong with a bad command line', () => {
    const cases: Array<[string[], RegExp]> = [
      [['nope'], /Unknown command "nope"/],
      [['serve', '--port', '70000'], /--port expects a number from 0 to 65535, got "70000"/],
      [['serve', '--port', '-1'], /--port/],
      [['serve', '--token', ''], /--token must not be empty/],
      [['run'], /run needs a command/],
      [['run', '--yield-ms', 'soon', '--', 'true'], /--yield-ms expects milliseconds/],
      [['mcp', '--port', '1'], /Unknown option '--port'/],
      [['mcp', '--return-on', 'soon'], /--return-on expects input-wait or deadline, got "soon"/],
      [['mcp', '--max-sessions', '0'], /--max-sessions expects a whole number of 1 or more/],
      [['mcp', '--env-inherit', 'some'], /--env-inherit expects all, core or none/],
      [['mcp', '--env-set', 'NOVALUE'], /--env-set expects NAME=VALUE, got "NOVALUE"/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseCli(argv), argv.join(' ')).toThrow(UsageError);
      expect(() => parseCli(argv), argv.join(' ')).toThrow(message);
    }
  });

  it('collects the session settings every command shares', () => {
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
      manager: {
        config: 'ue.json',
        shell: '/bin/zsh',
        returnOn: 'deadline',
        maxSessions: 16,
        envInherit: 'core',
        envKeepSecrets: true,
        envExclude: ['AWS_*', 'GH_*'],
        envIncludeOnly: ['PATH'],
        envSet: { A: '1', B: 'x=y' },
      },
    });
  });
});
