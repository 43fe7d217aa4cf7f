import { describe, expect, it } from 'vitest';
import { CLI, runToEnd, unsandboxed } from './cli-process.js';

/** The MCP Inspector's CLI mode (installed dev dependency, runs offline) against the stdio server. */
const inspect = (args: string[]) =>
  runToEnd('npx', [
    '--no-install',
    '@modelcontextprotocol/inspector',
    '--cli',
    process.execPath,
    CLI,
    'mcp',
    ...unsandboxed(args),
  ]);

describe('MCP Inspector CLI against unified-exec mcp', () => {
  it('lists the tools', async () => {
    const result = await inspect(['--method', 'tools/list']);
    expect(result.code, result.stderr).toBe(0);
    const { tools } = JSON.parse(result.stdout) as {
      tools: Array<{ name: string; inputSchema: { required?: string[] } }>;
    };
    expect(tools.map((t) => t.name)).toEqual(['exec_command', 'write_stdin', 'list_sessions', 'close_session']);
    expect(tools[0]?.inputSchema.required).toEqual(['cmd']);
  });

  it('calls exec_command', async () => {
    const result = await inspect([
      '--method',
      'tools/call',
      '--tool-name',
      'exec_command',
      '--tool-arg',
      'cmd=echo hi',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const call = JSON.parse(result.stdout) as {
      content: Array<{ type: string; text: string }>;
      isError?: boolean;
    };
    expect(call.isError ?? false).toBe(false);
    expect(call.content[0]?.text).toMatch(
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n$/,
    );
    expect(call).not.toHaveProperty('structuredContent');
  });
});
