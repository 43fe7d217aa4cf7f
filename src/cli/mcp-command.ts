import type { ManagerOptions } from '../manager/types.js';
import type { ToolName } from '../tools/definitions.js';
import { startStdioServer } from '../mcp/stdio.js';
import { log } from './log.js';
import { policyLine } from './server-policy.js';
import { exitOnSignals } from './signals.js';
import { hideTokenFiles } from './token-auth.js';

/** `mcp`: the stdio server. Nothing but protocol may reach stdout, so every message goes to stderr. */
export async function serveStdio(options: {
  managerOptions: ManagerOptions;
  version: string;
  tools: readonly ToolName[];
  structuredOutput: boolean;
  stateLines: boolean;
}): Promise<void> {
  hideTokenFiles(undefined, options.managerOptions.cwd ?? process.cwd());
  const server = await startStdioServer({
    managerOptions: options.managerOptions,
    version: options.version,
    tools: options.tools,
    structuredOutput: options.structuredOutput,
    stateLines: options.stateLines,
  });
  exitOnSignals(() => server.close(), log, 0);
  log(`MCP server on stdio; tools: ${options.tools.join(', ')}. ${policyLine(options.managerOptions)}`);
  await server.closed;
  log('client disconnected; every session ended');
  process.exit(0);
}
