import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { httpConnectHints, shellQuote, stdioConnectHints, viewHints } from '../../src/cli/connect-hints.js';

const URL = 'http://127.0.0.1:8765/mcp';
const DIR = mkdtempSync(join(tmpdir(), 'ue-hints-'));
/** A token file whose path needs quoting. */
const FILE = join(DIR, "it's a token");
writeFileSync(FILE, 'from-file-from-file\n', { mode: 0o600 });
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('connect hints', () => {
  it('gives Codex CLI, Claude Code and Inspector lines for a server without a token (--no-auth)', () => {
    const text = httpConnectHints(URL, { from: 'none' });
    expect(text).toContain(`  codex mcp add unified-exec --url ${URL}\n`);
    expect(text).toContain(`    [mcp_servers.unified-exec]\n    url = "${URL}"\n    tool_timeout_sec = 330\n`);
    expect(text).toContain(`  claude mcp add --transport http unified-exec ${URL}\n`);
    expect(text).toContain(
      `  npx @modelcontextprotocol/inspector@0.17.5 --cli ${URL} --transport http --method tools/list`,
    );
    expect(text).not.toMatch(/token|Bearer/i);
  });

  it('prints a token made at start: an environment variable for Codex, a header for Claude Code and Inspector', () => {
    const text = httpConnectHints(URL, { from: 'generated', token: 'Zm9v-YmFy_0123456789' });
    expect(text).toContain(`  export UNIFIED_EXEC_TOKEN=Zm9v-YmFy_0123456789\n`);
    expect(text).toContain(`codex mcp add unified-exec --url ${URL} --bearer-token-env-var UNIFIED_EXEC_TOKEN`);
    expect(text).toContain(`    url = "${URL}"\n    bearer_token_env_var = "UNIFIED_EXEC_TOKEN"\n`);
    expect(text).toContain(
      `claude mcp add --transport http unified-exec ${URL} --header 'Authorization: Bearer Zm9v-YmFy_0123456789'`,
    );
    expect(text).toContain(
      `npx @modelcontextprotocol/inspector@0.17.5 --cli ${URL} --transport http --header 'Authorization: Bearer Zm9v-YmFy_0123456789' --method tools/list`,
    );
  });

  it('reads a token the operator keeps in a file or the environment instead of printing it', () => {
    const fromFile = httpConnectHints(URL, { from: 'file', token: 'SECRET-SECRET-SECRET', path: '/home/me/my tok' });
    expect(fromFile).not.toContain('SECRET');
    expect(fromFile).toContain(`  export UNIFIED_EXEC_TOKEN="$(cat '/home/me/my tok')"\n`);
    expect(fromFile).toContain(`--header "Authorization: Bearer $(cat '/home/me/my tok')"`);

    const fromEnv = httpConnectHints(URL, { from: 'env', token: 'SECRET-SECRET-SECRET' });
    expect(fromEnv).not.toContain('SECRET');
    expect(fromEnv).not.toContain('export');
    expect(fromEnv).toContain('--bearer-token-env-var UNIFIED_EXEC_TOKEN');
    expect(fromEnv).toContain(`--header "Authorization: Bearer $UNIFIED_EXEC_TOKEN"`);
  });

  it('gives lines a shell reads back as the token and header', () => {
    // What the printed export and --header turn into, through a real shell.
    for (const auth of [
      { from: 'generated', token: 'Zm9v-YmFy_0123456789' },
      { from: 'file', token: 'x', path: FILE },
      { from: 'env', token: 'x' },
    ] as const) {
      const text = httpConnectHints(URL, auth);
      const exported = /^ {2}export (.*)$/m.exec(text)?.[1] ?? 'UNIFIED_EXEC_TOKEN="$UNIFIED_EXEC_TOKEN"';
      const header = / --header (.*) --method/.exec(text)?.[1] ?? '';
      const shell = spawnSync('sh', ['-c', `export ${exported}; printf '%s|%s' "$UNIFIED_EXEC_TOKEN" ${header}`], {
        env: { PATH: process.env.PATH, UNIFIED_EXEC_TOKEN: 'from-env-from-env-0' },
        encoding: 'utf8',
      });
      const token =
        auth.from === 'generated' ? auth.token : auth.from === 'file' ? 'from-file-from-file' : 'from-env-from-env-0';
      expect(shell.stdout, auth.from).toBe(`${token}|Authorization: Bearer ${token}`);
    }
  });

  it('gives stdio lines with the launch command quoted for a shell and spelled out for TOML', () => {
    const text = stdioConnectHints(['/usr/bin/node', '/opt/my tools/cli.js', 'mcp']);
    expect(text).toContain(`codex mcp add unified-exec -- /usr/bin/node '/opt/my tools/cli.js' mcp`);
    expect(text).toContain('command = "/usr/bin/node"\n    args = ["/opt/my tools/cli.js","mcp"]');
    expect(text).toContain(`claude mcp add unified-exec -- /usr/bin/node '/opt/my tools/cli.js' mcp`);
  });

  it('quotes only what needs quoting', () => {
    expect(shellQuote('abc-1.2/x')).toBe('abc-1.2/x');
    expect(shellQuote('a b')).toBe(`'a b'`);
    expect(shellQuote(`a'b`)).toBe(`'a'\\''b'`);
  });
});

describe('live view hints', () => {
  const VIEW = 'http://127.0.0.1:8765/view';

  it('gives the address with a token made at start in its fragment, percent-encoded', () => {
    expect(viewHints(VIEW, { from: 'generated', token: 'Zm9v-YmFy_0123456789' }, false)).toBe(
      `Watch the sessions in a browser:\n  ${VIEW}#token=Zm9v-YmFy_0123456789`,
    );
    expect(viewHints(VIEW, { from: 'generated', token: 'a+b/c=d&e' }, false)).toContain('#token=a%2Bb%2Fc%3Dd%26e');
    expect(viewHints(VIEW, { from: 'none' }, false)).toBe(`Watch the sessions in a browser:\n  ${VIEW}`);
  });

  it('says when the page can type into sessions', () => {
    expect(viewHints(VIEW, { from: 'none' }, true)).toContain('(it can type into them: --view-input)');
  });

  it('prints no token the operator keeps in a file or the environment: a line a shell turns into the address', () => {
    for (const auth of [
      { from: 'file', token: 'SECRET-SECRET-SECRET', path: FILE },
      { from: 'env', token: 'SECRET-SECRET-SECRET' },
    ] as const) {
      const text = viewHints(VIEW, auth, false);
      expect(text).not.toContain('SECRET');
      const line = /^ {2}(echo .*)$/m.exec(text)?.[1] ?? '';
      const shell = spawnSync('sh', ['-c', line], {
        env: { PATH: process.env.PATH, UNIFIED_EXEC_TOKEN: 'from-env-from-env-0' },
        encoding: 'utf8',
      });
      const token = auth.from === 'file' ? 'from-file-from-file' : 'from-env-from-env-0';
      expect(shell.stdout, auth.from).toBe(`${VIEW}#token=${token}\n`);
    }
  });
});
