import { parseArgs } from 'node:util';
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT } from '../mcp/defaults.js';
import { DEFAULT_EXEC_YIELD_TIME_MS } from '../manager/constants.js';
import type { ManagerFlags } from './manager-config.js';

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'mcp'; manager: ManagerFlags }
  | {
      kind: 'serve';
      host: string;
      port: number;
      token?: string;
      allowHosts: string[];
      idleTimeoutMs?: number;
      manager: ManagerFlags;
    }
  | { kind: 'run'; cmd: string; tty: boolean; yieldMs: number; manager: ManagerFlags };

/** A mistake on the command line: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Options every command takes: how its manager runs sessions. */
const managerOptions = {
  cwd: { type: 'string' },
  config: { type: 'string' },
  shell: { type: 'string' },
  'return-on': { type: 'string' },
  'max-sessions': { type: 'string' },
  'env-inherit': { type: 'string' },
  'env-keep-secrets': { type: 'boolean' },
  'env-exclude': { type: 'string', multiple: true },
  'env-include-only': { type: 'string', multiple: true },
  'env-set': { type: 'string', multiple: true },
} as const;

type ManagerValues = {
  cwd?: string;
  config?: string;
  shell?: string;
  'return-on'?: string;
  'max-sessions'?: string;
  'env-inherit'?: string;
  'env-keep-secrets'?: boolean;
  'env-exclude'?: string[];
  'env-include-only'?: string[];
  'env-set'?: string[];
};

function managerFlags(values: ManagerValues): ManagerFlags {
  const flags: ManagerFlags = {};
  if (values.cwd !== undefined) flags.cwd = values.cwd;
  if (values.config !== undefined) flags.config = values.config;
  if (values.shell !== undefined) flags.shell = values.shell;
  const returnOn = values['return-on'];
  if (returnOn !== undefined) {
    if (returnOn !== 'input-wait' && returnOn !== 'deadline') {
      throw new UsageError(`--return-on expects input-wait or deadline, got ${JSON.stringify(returnOn)}`);
    }
    flags.returnOn = returnOn;
  }
  const maxSessions = values['max-sessions'];
  if (maxSessions !== undefined) {
    if (!/^\d+$/.test(maxSessions) || Number(maxSessions) < 1) {
      throw new UsageError(`--max-sessions expects a whole number of 1 or more, got ${JSON.stringify(maxSessions)}`);
    }
    flags.maxSessions = Number(maxSessions);
  }
  const inherit = values['env-inherit'];
  if (inherit !== undefined) {
    if (inherit !== 'all' && inherit !== 'core' && inherit !== 'none') {
      throw new UsageError(`--env-inherit expects all, core or none, got ${JSON.stringify(inherit)}`);
    }
    flags.envInherit = inherit;
  }
  if (values['env-keep-secrets']) flags.envKeepSecrets = true;
  if (values['env-exclude']) flags.envExclude = values['env-exclude'];
  if (values['env-include-only']) flags.envIncludeOnly = values['env-include-only'];
  if (values['env-set']) {
    flags.envSet = {};
    for (const pair of values['env-set']) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new UsageError(`--env-set expects NAME=VALUE, got ${JSON.stringify(pair)}`);
      flags.envSet[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return flags;
}
const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

/** `argv` without node and the script; `env` supplies UNIFIED_EXEC_TOKEN. Pure: no I/O, throws UsageError. */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { kind: 'help' };
  if (first === '--version' || first === '-v' || first === 'version') return { kind: 'version' };
  try {
    switch (first) {
      case 'mcp': {
        const { values } = parseArgs({ args: rest, options: { ...managerOptions, ...helpOption }, strict: true });
        return values.help ? { kind: 'help' } : { kind: 'mcp', manager: managerFlags(values) };
      }
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          options: {
            host: { type: 'string' },
            port: { type: 'string' },
            token: { type: 'string' },
            'allow-host': { type: 'string', multiple: true },
            'idle-timeout-s': { type: 'string' },
            ...managerOptions,
            ...helpOption,
          },
          strict: true,
        });
        if (values.help) return { kind: 'help' };
        const token = values.token ?? env.UNIFIED_EXEC_TOKEN;
        if (token !== undefined && token.trim() === '') throw new UsageError('--token must not be empty');
        return {
          kind: 'serve',
          host: values.host ?? DEFAULT_HTTP_HOST,
          port: values.port === undefined ? DEFAULT_HTTP_PORT : parsePort(values.port),
          ...optional('token', token),
          allowHosts: values['allow-host'] ?? [],
          ...(values['idle-timeout-s'] === undefined
            ? {}
            : { idleTimeoutMs: parseSeconds(values['idle-timeout-s']) * 1000 }),
          manager: managerFlags(values),
        };
      }
      case 'run': {
        const { values, positionals } = parseArgs({
          args: rest,
          options: { tty: { type: 'boolean' }, 'yield-ms': { type: 'string' }, ...managerOptions, ...helpOption },
          strict: true,
          allowPositionals: true,
        });
        if (values.help) return { kind: 'help' };
        // The words after `--` form one shell command line, as with ssh: `run -- ls -la` runs "ls -la".
        const cmd = positionals.join(' ');
        if (cmd.trim() === '') throw new UsageError('run needs a command: unified-exec run -- <command...>');
        return {
          kind: 'run',
          cmd,
          tty: values.tty ?? false,
          yieldMs: values['yield-ms'] === undefined ? DEFAULT_EXEC_YIELD_TIME_MS : parseMillis(values['yield-ms']),
          manager: managerFlags(values),
        };
      }
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(first)}; expected mcp, serve or run`);
    }
  } catch (error) {
    // parseArgs reports unknown options with its own error type; give them the same treatment.
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new UsageError(`--port expects a number from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

function parseSeconds(text: string): number {
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || seconds <= 0) {
    throw new UsageError(`--idle-timeout-s expects seconds (a number above 0), got ${JSON.stringify(text)}`);
  }
  return seconds;
}

function parseMillis(text: string): number {
  const ms = Number(text);
  if (text.trim() === '' || !Number.isFinite(ms) || ms < 0) {
    throw new UsageError(`--yield-ms expects milliseconds (a number, 0 or more), got ${JSON.stringify(text)}`);
  }
  return ms;
}
