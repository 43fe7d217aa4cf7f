import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../mcp/cli-process.js';

const version = (JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string }).version;

describe('unified-exec CLI', () => {
  it('prints its version from package.json', async () => {
    const result = await runCli(['--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('prints usage with every command and the stdio connect lines', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const text of [
      'unified-exec mcp',
      'unified-exec serve',
      'unified-exec run',
      '--token-file FILE',
      '--no-auth',
      '--port',
      'codex mcp add unified-exec -- ',
      'claude mcp add unified-exec -- ',
    ]) {
      expect(result.stdout).toContain(text);
    }
  });

  it('run -- echo hi prints the compat text and exits 0', async () => {
    const result = await runCli(['run', '--', 'echo', 'hi']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n$/,
    );
  });

  it('run -- exit 3 exits 3', async () => {
    const result = await runCli(['run', '--', 'exit', '3']);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('Process exited with code 3');
  });

  it('run keeps polling a command that outlives one yield, printing each reply', async () => {
    const result = await runCli(['run', '--yield-ms', '250', '--', 'sleep 0.6; echo done']);
    expect(result.code).toBe(0);
    const replies = result.stdout.split(/\n(?=Chunk ID: )/);
    expect(replies.length).toBeGreaterThanOrEqual(2);
    expect(replies[0]).toMatch(/Process running with session ID \d+/);
    expect(replies.at(-1)).toMatch(/Process exited with code 0\nOriginal token count: 2\nOutput:\ndone\n$/);
  });

  it('run --tty gives the command a terminal', async () => {
    const result = await runCli(['run', '--tty', '--', 'test -t 0 && echo tty']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Output:\ntty\r?\n$/);
  });

  it('keeps secrets out of sessions unless told, and applies --env-set', async () => {
    const secretEnv = { DEPLOY_API_KEY: 'k-123', PLAIN_VALUE: 'visible' };
    const cmd = 'echo "[$DEPLOY_API_KEY][$PLAIN_VALUE][$EXTRA]"';
    const hidden = await runCli(['run', '--env-set', 'EXTRA=set', '--', cmd], 30_000, secretEnv);
    expect(hidden.stdout).toContain('[][visible][set]');
    const kept = await runCli(['run', '--env-keep-secrets', '--env-exclude', 'plain_*', '--', cmd], 30_000, secretEnv);
    expect(kept.stdout).toContain('[k-123][][]');
  });

  it('exits 2 naming the file when --config cannot be used', async () => {
    const result = await runCli(['run', '--config', '/nonexistent/ue.json', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot read config /nonexistent/ue.json');
  });

  describe('with a config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ue-config-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const config = (name: string, settings: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(settings));
      return path;
    };

    it('applies its settings, with flags over them', async () => {
      const path = config('ue.json', { defaultShell: '/bin/sh', env: { set: { X: 'file', Y: 'file' } } });
      const cmd = 'echo "[$X][$Y][$0]"';
      const result = await runCli(['run', '--config', path, '--env-set', 'Y=flag', '--', cmd]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('[file][flag][/bin/sh]');
    });

    it('exits 2 naming the file and the key it does not know', async () => {
      const path = config('old.json', { shell: '/bin/sh' });
      const result = await runCli(['run', '--config', path, '--', 'true']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`invalid config ${path}: unknown key "shell" (known: cwd, defaultShell,`);
    });
  });

  it('rejects an unknown command or option with exit code 2 and a pointer to --help', async () => {
    for (const args of [['frobnicate'], ['serve', '--bogus'], ['run'], ['serve', '--port', 'http']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('unified-exec --help');
    }
    const result = await runCli(['mcp', '--max-sessions', 'x']);
    expect(result.stderr).toContain('unified-exec: --max-sessions: expected a whole number of 1 or more, got "x"\n');
  });
});
