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
  alwaysLoad: boolean;
}): Promise<void> {
  hideTokenFiles(undefined, options.managerOptions.cwd ?? process.cwd());
  // Said before the first answer: a client that has its answer to initialize finds the line there.
  log(`MCP server on stdio; tools: ${options.tools.join(', ')}. ${policyLine(options.managerOptions)}`);
  const starting = startStdioServer({
    managerOptions: options.managerOptions,
    version: options.version,
    tools: options.tools,
    structuredOutput: options.structuredOutput,
    stateLines: options.stateLines,
    alwaysLoad: options.alwaysLoad,
  });
  // From the start: a signal while the manager still loads (the server answers before it) ends the server cleanly.
  exitOnSignals(async () => (await starting).close(), log, 0);
  const server = await starting;
  await server.closed;
  log('client disconnected; every session ended');
  process.exit(0);
}
