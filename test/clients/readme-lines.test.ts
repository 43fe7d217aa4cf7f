import { describe, expect, it } from 'vitest';
import { addUnderTable } from './codex-client.js';
import { fillPlaceholders, readmeClientLines } from './readme-lines.js';

describe('the client lines of the README and docs/clients.md', () => {
  it('are found there, one of each', () => {
    const lines = readmeClientLines();
    expect(lines.codexAdd.stdio).toMatch(/^codex mcp add unified-exec -- node \/path\/to\/unified-exec\/.* mcp\b/);
    expect(lines.codexAdd.http).toMatch(/^codex mcp add unified-exec --url \S+ --bearer-token-env-var \w+/);
    expect(lines.claudeAdd.stdio).toMatch(/^claude mcp add unified-exec -- node \/path\/to\/unified-exec\//);
    expect(lines.claudeAdd.http).toMatch(/^claude mcp add --transport http unified-exec \S+ \\\n\s+--header /);
    expect(lines.claudeHeadless).toMatch(
      /^MCP_CONNECTION_NONBLOCKING=false claude -p .* --allowedTools mcp__unified-exec$/,
    );
    expect(lines.codexToml).toContain('default_tools_approval_mode = "approve"');
    // Else Codex gives the server a 1 s grace before the first turn, less than a cold start on a busy machine.
    expect(lines.codexToml).toContain('required = true');
    expect(JSON.parse(lines.claudeSettings)).toHaveProperty('hooks.Elicitation');
  });

  it('name what is missing when a section lost its line', () => {
    const sh = (line: string) => `\n\`\`\`sh\n${line}\n\`\`\`\n`;
    const readme = `\n### Codex CLI\n${sh('echo nothing')}\n\`\`\`toml\na = 1\n\`\`\`\n\n### Claude Code\n${sh('claude mcp add x')}${sh('claude -p hi')}`;
    const clients = `\n## Claude Code headless\n${sh('claude -p hi')}\n\`\`\`json\n{}\n\`\`\`\n`;
    expect(() => readmeClientLines(readme, clients)).toThrow(
      /expected one README line for codex mcp add \(stdio\), found 0/,
    );
  });

  it('fill in the checkout and the URL a test server listens on', () => {
    const line = 'x /path/to/unified-exec/dist/cli/index.js http://127.0.0.1:8765/mcp';
    expect(fillPlaceholders(line, '/src/ue', 'http://127.0.0.1:4000/mcp')).toBe(
      'x /src/ue/dist/cli/index.js http://127.0.0.1:4000/mcp',
    );
  });
});

describe('adding the TOML lines', () => {
  it('puts them right under the table codex mcp add wrote, not in a second table', () => {
    const config = 'a = 1\n\n[mcp_servers.unified-exec]\ncommand = "node"\n\n[other]\nb = 2\n';
    expect(addUnderTable(config, ['tool_timeout_sec = 330'])).toBe(
      'a = 1\n\n[mcp_servers.unified-exec]\ntool_timeout_sec = 330\ncommand = "node"\n\n[other]\nb = 2\n',
    );
  });
});
