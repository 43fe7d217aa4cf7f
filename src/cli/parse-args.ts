import { parseArgs } from 'node:util';
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT } from '../mcp/defaults.js';
import { DEFAULT_EXEC_YIELD_TIME_MS } from '../manager/constants.js';

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'mcp'; cwd?: string }
  | { kind: 'serve'; host: string; port: number; token?: string; allowHosts: string[]; cwd?: string }
  | { kind: 'run'; cmd: string; tty: boolean; yieldMs: number; cwd?: string };

/** A mistake on the command line: printed with a pointer to --help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const cwdOption = { cwd: { type: 'string' } } as const;
const helpOption = { help: { type: 'boolean', short: 'h' } } as const;

/** `argv` without node and the script; `env` supplies UNIFIED_EXEC_TOKEN. Pure: no I/O, throws UsageError. */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') return { kind: 'help' };
  if (first === '--version' || first === '-v' || first === 'version') return { kind: 'version' };
  try {
    switch (first) {
      case 'mcp': {
        const { values } = parseArgs({ args: rest, options: { ...cwdOption, ...helpOption }, strict: true });
        return values.help ? { kind: 'help' } : { kind: 'mcp', ...optional('cwd', values.cwd) };
      }
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          options: {
            host: { type: 'string' },
            port: { type: 'string' },
            token: { type: 'string' },
            'allow-host': { type: 'string', multiple: true },
            ...cwdOption,
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
          ...optional('cwd', values.cwd),
        };
      }
      case 'run': {
        const { values, positionals } = parseArgs({
          args: rest,
          options: { tty: { type: 'boolean' }, 'yield-ms': { type: 'string' }, ...cwdOption, ...helpOption },
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
          ...optional('cwd', values.cwd),
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
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`--port expects a number from 0 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

function parseMillis(text: string): number {
  const ms = Number(text);
  if (text.trim() === '' || !Number.isFinite(ms) || ms < 0) {
    throw new UsageError(`--yield-ms expects milliseconds (a number, 0 or more), got ${JSON.stringify(text)}`);
  }
  return ms;
}
