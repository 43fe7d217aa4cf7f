// Everything the CLI does but print its version (index.ts does that alone, loading nothing else).
import './zod-jitless.js';
import type { ManagerOptions } from '../manager/types.js';
import { survivePipeErrors } from './log.js';
import { resolveManagerOptions } from './manager-config.js';
import { parseCli, UsageError, type CliCommand } from './parse-args.js';
import { resolveServeAuth, type ServeAuth } from './serve-auth.js';
import { prepareSandbox, withServerDefaults } from './server-policy.js';
import { packageVersion } from './version.js';

// Commands load lazily: --help should not pay for the MCP SDK and node-pty.

/** Runs the command `argv` names; `self` is the CLI's own file (its real path), for the usage's examples. */
export async function main(argv: string[], self: string): Promise<void> {
  survivePipeErrors();
  const version = packageVersion();
  let command: CliCommand;
  try {
    command = parseCli(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`unified-exec: ${error.message}\nRun \`unified-exec --help\` for usage.\n`);
    return exit(2);
  }
  let managerOptions: ManagerOptions = {};
  if ('manager' in command) {
    try {
      managerOptions = resolveManagerOptions(command.manager);
    } catch (error) {
      process.stderr.write(`unified-exec: ${(error as Error).message}\n`);
      return exit(2);
    }
  }
  // A server's sandbox probe runs as a child process while the server's modules load (the two take about as long).
  const loading =
    command.kind === 'mcp'
      ? import('./mcp-command.js')
      : command.kind === 'serve'
        ? import('./serve-command.js')
        : undefined;
  loading?.catch(() => undefined); // awaited below, unless the probe ends the start first
  if (command.kind === 'mcp' || command.kind === 'serve') {
    const prepared = await prepareSandbox(withServerDefaults(managerOptions));
    if (!prepared.ok) {
      process.stderr.write(`unified-exec: ${prepared.problem}\n`);
      return exit(1);
    }
    managerOptions = prepared.options;
    if (prepared.note !== undefined) process.stderr.write(`unified-exec: ${prepared.note}\n`);
  }
  switch (command.kind) {
    case 'help': {
      const { usage } = await import('./usage.js');
      process.stdout.write(usage(version, [process.execPath, self, 'mcp']));
      return exit(0);
    }
    case 'version':
      process.stdout.write(`${version}\n`);
      return exit(0);
    case 'mcp': {
      const { serveStdio } = (await loading) as typeof import('./mcp-command.js');
      return serveStdio({
        managerOptions,
        version,
        tools: command.tools,
        structuredOutput: command.structuredOutput,
        stateLines: command.stateLines,
        alwaysLoad: !command.deferTools,
      });
    }
    case 'serve': {
      let auth: ServeAuth;
      try {
        auth = resolveServeAuth(command, process.env);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`unified-exec: ${error.message}\n`);
        return exit(2);
      }
      const { serve } = (await loading) as typeof import('./serve-command.js');
      return serve({ ...command, auth, managerOptions, version });
    }
    case 'run': {
      const { runOnce } = await import('./run-command.js');
      return exit(await runOnce({ ...command, managerOptions }));
    }
    case 'exec-server': {
      const { resolveExecServerAuth, runExecServer } = await import('./exec-server-command.js');
      let auth: ServeAuth;
      try {
        auth = resolveExecServerAuth(command.listen, command, process.env);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`unified-exec: ${error.message}\n`);
        return exit(2);
      }
      return runExecServer({ ...command, auth, version });
    }
  }
}

/** Exits once stdout has taken everything: leftover timers elsewhere must not keep a finished command alive. */
async function exit(code: number): Promise<void> {
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

/** How an error that ends the CLI reads: configuration mistakes as one clear line, anything else with its stack. */
export function failureLine(error: unknown): string {
  const known = error instanceof Error && (error.name === 'UnifiedExecError' || isListenError(error));
  return `unified-exec: ${known ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`;
}

function isListenError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL';
}
