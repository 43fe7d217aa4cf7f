import { parseArgs } from 'node:util';
import type { ManagerSettings } from '../manager/settings.js';
import {
  execServerSettingsSchema,
  type ExecServerSettings,
  FLAG_TABLES,
  mcpSettingsSchema,
  runSettingsSchema,
  type McpSettings,
  serveSettingsSchema,
  type RunSettings,
  type ServeSettings,
} from './cli-settings.js';
import { DEFAULT_LISTEN, parseListen, type ListenTarget } from './exec-server-command.js';
import type { ManagerFlags } from './manager-config.js';
import { TOKEN_ENV } from './serve-auth.js';
import { flagOptions, readFlags, resolveFlags } from './setting-flags.js';
import { UsageError } from './usage-error.js';

export { UsageError };

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | ({ kind: 'mcp'; manager: ManagerFlags } & McpSettings)
  | ({ kind: 'serve'; manager: ManagerFlags } & ServeSettings)
  | ({ kind: 'run'; cmd: string; manager: ManagerFlags } & RunSettings)
  | ({ kind: 'exec-server'; listen: ListenTarget; noAuth: boolean; tokenFile?: string } & ExecServerSettings);

const sessionLeaves = [...FLAG_TABLES.config, ...FLAG_TABLES.manager];
const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

type Values = ReturnType<typeof parseArgs>['values'];

function managerFlags(values: Values): ManagerFlags {
  const { config } = readFlags(FLAG_TABLES.config, values) as { config?: string };
  // Each value was checked by its own leaf of managerSettingsSchema.
  const settings = readFlags(FLAG_TABLES.manager, values) as ManagerSettings;
  return config === undefined ? { settings } : { config, settings };
}

/**
 * `--token SECRET` was once accepted: say where the token goes now rather than "Unknown option". A flag cannot carry
 * a secret: every local user can read /proc/<pid>/cmdline.
 */
function refuseTokenFlag(args: string[]): void {
  if (args.some((arg) => arg === '--token' || arg.startsWith('--token='))) {
    throw new UsageError(
      `--token is not accepted: every local user can read a command line (/proc/<pid>/cmdline). Put the token in a file only you can read and pass --token-file FILE, or set ${TOKEN_ENV}; with neither, serve makes a random token and prints it.`,
    );
  }
}

/** `argv` without node and the script; `env` supplies flags' environment fallbacks. Pure: no I/O, throws UsageError. */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { kind: 'help' };
  if (first === '--version' || first === '-v' || first === 'version') return { kind: 'version' };
  try {
    switch (first) {
      case 'mcp': {
        const leaves = [...FLAG_TABLES.mcp, ...sessionLeaves];
        const { values } = parseArgs({ args: rest, options: { ...flagOptions(leaves), ...helpOption } });
        if (values.help) return { kind: 'help' };
        const mcp = resolveFlags(mcpSettingsSchema, FLAG_TABLES.mcp, values);
        return { kind: 'mcp', ...mcp, manager: managerFlags(values) };
      }
      case 'serve': {
        refuseTokenFlag(rest);
        const leaves = [...FLAG_TABLES.serve, ...sessionLeaves];
        const { values } = parseArgs({ args: rest, options: { ...flagOptions(leaves), ...helpOption } });
        if (values.help) return { kind: 'help' };
        const serve = resolveFlags(serveSettingsSchema, FLAG_TABLES.serve, values, env);
        if (serve.noView && serve.viewInput) {
          throw new UsageError('--no-view and --view-input contradict each other: give one of them');
        }
        return { kind: 'serve', ...serve, manager: managerFlags(values) };
      }
      case 'run': {
        const leaves = [...FLAG_TABLES.run, ...sessionLeaves];
        const { values, positionals } = parseArgs({
          args: rest,
          options: { ...flagOptions(leaves), ...helpOption },
          allowPositionals: true,
        });
        if (values.help) return { kind: 'help' };
        // The words after `--` form one shell command line, as with ssh: `run -- ls -la` runs "ls -la".
        const cmd = positionals.join(' ');
        if (cmd.trim() === '') throw new UsageError('run needs a command: unified-exec run -- <command...>');
        const run = resolveFlags(runSettingsSchema, FLAG_TABLES.run, values);
        return { kind: 'run', cmd, ...run, manager: managerFlags(values) };
      }
      case 'exec-server': {
        refuseTokenFlag(rest);
        const { values } = parseArgs({
          args: rest,
          options: {
            listen: { type: 'string' },
            'token-file': { type: 'string' },
            'no-auth': { type: 'boolean' },
            ...flagOptions(FLAG_TABLES.execServer),
            ...helpOption,
          },
        });
        if (values.help) return { kind: 'help' };
        const listen = parseListen(values.listen ?? DEFAULT_LISTEN);
        const tokenFile = values['token-file'];
        // Only the flags given: a stdio server has no listener whose connections they could limit.
        const limits = readFlags(FLAG_TABLES.execServer, values);
        const limit = FLAG_TABLES.execServer.find((leaf) => leaf.name in limits);
        if (listen.kind === 'stdio' && limit !== undefined) {
          throw new UsageError(
            `--listen stdio has no listener, so no connections to limit: --${limit.meta.flag} is for ws:// only`,
          );
        }
        return {
          kind: 'exec-server',
          listen,
          noAuth: values['no-auth'] ?? false,
          ...(tokenFile !== undefined ? { tokenFile } : {}),
          ...execServerSettingsSchema.parse(limits),
        };
      }
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(first)}; expected mcp, serve, run or exec-server`);
    }
  } catch (error) {
    // parseArgs reports unknown options with its own error type; give them the same treatment.
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}
