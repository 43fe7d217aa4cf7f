import { describe, expect, it } from 'vitest';
import { httpConnectHints, shellQuote, stdioConnectHints } from '../../src/cli/connect-hints.js';

const URL = 'http://127.0.0.1:8765/mcp';

describe('connect hints', () => {
  it('gives Codex CLI and Claude Code lines for an open loopback server', () => {
    const text = httpConnectHints(URL);
    expect(text).toContain(`  codex mcp add unified-exec --url ${URL}\n`);
    expect(text).toContain(`    [mcp_servers.unified-exec]\n    url = "${URL}"\n    tool_timeout_sec = 330\n`);
    expect(text).toContain(`  claude mcp add --transport http unified-exec ${URL}`);
    expect(text).not.toMatch(/token|Bearer/i);
  });

  it('passes a token through an environment variable for Codex and a header for Claude Code', () => {
    const text = httpConnectHints(URL, "it's secret");
    expect(text).toContain(`export UNIFIED_EXEC_TOKEN='it'\\''s secret'`);
    expect(text).toContain(`codex mcp add unified-exec --url ${URL} --bearer-token-env-var UNIFIED_EXEC_TOKEN`);
    expect(text).toContain('bearer_token_env_var = "UNIFIED_EXEC_TOKEN"');
    expect(text).toContain(
      `claude mcp add --transport http unified-exec ${URL} --header 'Authorization: Bearer it'\\''s secret'`,
    );
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
