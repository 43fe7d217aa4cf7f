import { z } from 'zod';
import { DEFAULT_EXEC_YIELD_TIME_MS } from '../manager/constants.js';
import { describeValue } from '../manager/errors.js';
import { managerSettingsSchema } from '../manager/settings.js';
import { DEFAULT_CLIENT_IDLE_TIMEOUT_MS } from '../mcp/defaults.js';
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT } from '../mcp/defaults.js';
import { settingLeaves, type FlagMeta } from './setting-table.js';

/** The CLI's own options, in tables of the same shape as the manager's settings (src/manager/settings.ts). */

const meta = (m: FlagMeta) => m;
const expected = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, got ${describeValue(issue.input)}`,
});

/** `serve`: where the HTTP server listens and whom it lets in. */
export const serveSettingsSchema = z.strictObject({
  host: z
    .string(expected('an address'))
    .min(1, expected('an address'))
    .default(DEFAULT_HTTP_HOST)
    .meta(
      meta({
        description: 'address to listen on; any non-loopback address requires --token',
        flag: 'host',
        placeholder: 'ADDR',
      }),
    ),
  port: z
    .number(expected('a port number from 0 to 65535'))
    .int(expected('a port number from 0 to 65535'))
    .min(0, expected('a port number from 0 to 65535'))
    .max(65_535, expected('a port number from 0 to 65535'))
    .default(DEFAULT_HTTP_PORT)
    .meta(
      meta({ description: 'port to listen on; 0 picks a free port and prints it', flag: 'port', placeholder: 'N' }),
    ),
  token: z
    .string(expected('a non-empty secret'))
    .refine((token) => token.trim() !== '', expected('a non-empty secret'))
    .optional()
    .meta(
      meta({
        description: 'require "Authorization: Bearer SECRET" on every request',
        flag: 'token',
        placeholder: 'SECRET',
        envVar: 'UNIFIED_EXEC_TOKEN',
        shownDefault: '$UNIFIED_EXEC_TOKEN, else none',
      }),
    ),
  allowHosts: z
    .array(z.string(expected('a host name')).min(1, expected('a host name')))
    .default([])
    .meta(
      meta({
        description: 'also accept requests addressed to NAME (a DNS name of this machine); repeatable',
        flag: 'allow-host',
        placeholder: 'NAME',
      }),
    ),
  idleTimeoutS: z
    .number(expected('seconds above 0'))
    .positive(expected('seconds above 0'))
    .default(DEFAULT_CLIENT_IDLE_TIMEOUT_MS / 1000)
    .meta(
      meta({
        description: 'end a client session (and its processes) after this many seconds without a request',
        flag: 'idle-timeout-s',
        placeholder: 'SECONDS',
      }),
    ),
});
export type ServeSettings = z.output<typeof serveSettingsSchema>;

/** `run`: how the one command runs. */
export const runSettingsSchema = z.strictObject({
  tty: z
    .boolean(expected('true or false'))
    .default(false)
    .meta(meta({ description: 'give the command a pseudo-terminal', flag: 'tty' })),
  yieldMs: z
    .number(expected('milliseconds, 0 or more'))
    .min(0, expected('milliseconds, 0 or more'))
    .default(DEFAULT_EXEC_YIELD_TIME_MS)
    .meta(
      meta({
        description: 'milliseconds to wait before each reply while the command runs',
        flag: 'yield-ms',
        placeholder: 'MS',
      }),
    ),
});
export type RunSettings = z.output<typeof runSettingsSchema>;

/** `cwd, defaultShell, ..., env {inherit, keepSecrets}`: the keys a config file may have. */
function configKeys(table: z.ZodObject): string {
  const groups = new Map<string, string[]>();
  for (const { path } of settingLeaves(table)) {
    const [top = '', ...rest] = path;
    const group = groups.get(top) ?? [];
    if (rest.length > 0) group.push(rest.join('.'));
    groups.set(top, group);
  }
  return [...groups].map(([top, inner]) => (inner.length === 0 ? top : `${top} {${inner.join(', ')}}`)).join(', ');
}

/** Options every command takes beside the manager's settings. */
export const sessionCliSchema = z.strictObject({
  config: z
    .string(expected('a file name'))
    .min(1, expected('a file name'))
    .optional()
    .meta(
      meta({
        description: `JSON file with any of: ${configKeys(managerSettingsSchema)}; flags override it, repeatable flags add to its lists`,
        flag: 'config',
        placeholder: 'FILE',
      }),
    ),
});

/** The leaves of each table; every command takes the session ones (the config file and the manager's settings). */
export const FLAG_TABLES = {
  serve: settingLeaves(serveSettingsSchema),
  run: settingLeaves(runSettingsSchema),
  config: settingLeaves(sessionCliSchema),
  manager: settingLeaves(managerSettingsSchema),
};
