import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The public API, pinned: every runtime name each entry point of package.json's `exports` offers. Changing one of
// these lists is a deliberate API decision (a name added is a promise kept across minor versions; a name removed
// breaks callers), not a side effect of a refactor. Type-only exports vanish at run time and are not listed here.

const names = (module: object) => Object.keys(module).sort();

describe('the public API', () => {
  it('has four entry points, built from the modules pinned below', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      exports: Record<string, { import: string }>;
    };
    expect(Object.fromEntries(Object.entries(pkg.exports).map(([path, entry]) => [path, entry.import]))).toEqual({
      '.': './dist/lib/index.js',
      './mcp': './dist/lib/mcp.js',
      './ai-sdk': './dist/lib/ai-sdk.js',
      './openai-agents': './dist/lib/openai-agents.js',
    });
  });

  it('unified-exec exports the manager, the tools, the executors and the exec-server, and nothing internal', async () => {
    expect(names(await import('../src/index.js'))).toEqual([
      'ALL_TOOL_NAMES',
      'DockerExecutor',
      'ExecServer',
      'LocalExecutor',
      'RemoteExecutor',
      'SessionBudget',
      'TOOL_NAMES',
      'UnifiedExecError',
      'UnifiedExecManager',
      'anthropicTools',
      'callTool',
      'exec',
      'formatResponse',
      'formatShellResponse',
      'listenWebSocket',
      'openAiChatTools',
      'openAiResponsesTools',
      'sequentialIds',
      'toolDefinitions',
    ]);
  });

  it('unified-exec/mcp exports the MCP servers and their request guard', async () => {
    expect(names(await import('../src/mcp/index.js'))).toEqual([
      'ClientRegistry',
      'DEFAULT_HTTP_HOST',
      'DEFAULT_HTTP_PORT',
      'MCP_PATH',
      'SERVER_NAME',
      'buildGuardPolicy',
      'checkRequest',
      'createMcpServer',
      'isLoopbackHost',
      'startHttpServer',
      'startStdioServer',
      'toCallToolResult',
    ]);
  });

  it('unified-exec/ai-sdk exports the AI SDK tools alone', async () => {
    expect(names(await import('../src/tools/ai-sdk.js'))).toEqual(['aiSdkTools']);
  });

  it('unified-exec/openai-agents exports the Agents SDK sandbox client and its session', async () => {
    expect(names(await import('../src/tools/openai-agents.js'))).toEqual([
      'UnifiedExecSandboxClient',
      'UnifiedExecSandboxSession',
    ]);
  });
});
