import { z } from 'zod';
import { DEFAULT_EXEC_YIELD_TIME_MS } from '../manager/constants.js';
import { expected } from '../manager/errors.js';
import { managerSettingsSchema } from '../manager/settings.js';
import {
  DEFAULT_CLIENT_DISCONNECT_GRACE_MS,
  DEFAULT_CLIENT_IDLE_TIMEOUT_MS,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_CLIENTS,
} from '../mcp/defaults.js';
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_CONNECTIONS } from '../net/defaults.js';
import { ALL_TOOL_NAMES, TOOL_NAMES } from '../tools/definitions.js';
import { settingLeaves, type FlagMeta } from './setting-table.js';

/** The CLI's own options, in tables of the same shape as the manager's settings (src/manager/settings.ts). */

const meta = (m: FlagMeta) => m;
/** A time in seconds above 0, its default given in milliseconds. */
const seconds = (fallbackMs: number) =>
  z
    .number(expected('seconds above 0'))
    .positive(expected('seconds above 0'))
    .default(fallbackMs / 1000);
/** A whole number above 0. */
/** A switch, off unless its flag is given. */
const off = () => z.boolean(expected('true or false')).default(false);
const count = (fallback: number) =>
  z
    .number(expected('a whole number above 0'))
    .int(expected('a whole number above 0'))
    .positive(expected('a whole number above 0'))
    .default(fallback);

/** `mcp` and `serve`: which tools the server offers. */
const toolsSetting = z
  .array(z.enum(ALL_TOOL_NAMES, expected(ALL_TOOL_NAMES.join(', '))), expected('a list of tool names'))
  .min(1, expected('at least one tool'))
  .default([...TOOL_NAMES])
  .meta(
    meta({
      description: `offer tool NAME (${ALL_TOOL_NAMES.join(', ')}); repeatable: the tools given replace the default set`,
      flag: 'tool',
      placeholder: 'NAME',
      shownDefault: TOOL_NAMES.join(', '),
    }),
  );

/** `mcp` and `serve`: whether results carry structuredContent (and tools declare an outputSchema). */
const structuredOutputSetting = off().meta(
  meta({
    description:
      "declare each tool's outputSchema and answer with structuredContent beside the text; without it results carry the text alone, which is what Codex CLI and Claude Code then show the model (with structuredContent they show that JSON instead)",
    flag: 'structured-output',
  }),
);

/** `mcp` and `serve`: whether the text carries our lines about a session's state. */
const stateLinesSetting = off().meta(
  meta({
    description:
      "add our lines about a session's state to the text after its id: `Process is waiting for input`, `Terminal echo is off (password prompt)`; without it the text is Codex's own, byte for byte (the state is in structured results)",
    flag: 'state-lines',
  }),
);

/** `mcp` and `serve`: whether Claude Code may defer exec_command and write_stdin behind its tool search. */
const deferToolsSetting = off().meta(
  meta({
    description:
      'leave exec_command and write_stdin without `_meta["anthropic/alwaysLoad"]`, so Claude Code may defer them behind its tool search (the model then sees only their names until it searches); without it they are loaded from the first turn',
    flag: 'defer-tools',
  }),
);

/** `serve` and `exec-server`: the cap on open connections, against a flood of them (src/net/connection-limits.ts). */
const maxConnectionsSetting = count(DEFAULT_MAX_CONNECTIONS).meta(
  meta({
    description:
      'open TCP connections at once; at the cap a new one closes the oldest that never sent the token, or is closed if all did',
    flag: 'max-connections',
    placeholder: 'N',
  }),
);

/** `serve` and `exec-server`: how long a request's headers may take (slowloris). */
const headersTimeoutSetting = seconds(DEFAULT_HEADERS_TIMEOUT_MS).meta(
  meta({
    description: "close a connection that has not sent a request's headers within this many seconds (slowloris)",
    flag: 'headers-timeout-s',
    placeholder: 'SECONDS',
  }),
);

/** `mcp`: the stdio server. */
export const mcpSettingsSchema = z.strictObject({
  tools: toolsSetting,
  structuredOutput: structuredOutputSetting,
  stateLines: stateLinesSetting,
  deferTools: deferToolsSetting,
});
export type McpSettings = z.output<typeof mcpSettingsSchema>;

/** `serve`: where the HTTP server listens and whom it lets in. */
export const serveSettingsSchema = z.strictObject({
  tools: toolsSetting,
  structuredOutput: structuredOutputSetting,
  stateLines: stateLinesSetting,
  deferTools: deferToolsSetting,
  host: z
    .string(expected('an address'))
    .min(1, expected('an address'))
    .default(DEFAULT_HTTP_HOST)
    .meta(
      meta({
        description: 'address to listen on; only a loopback address may go without a token (--no-auth)',
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
  // No --token: a flag's value is readable by every local user in /proc/<pid>/cmdline (see serve-auth.ts).
  tokenFile: z
    .string(expected('a file name'))
    .min(1, expected('a file name'))
    .optional()
    .meta(
      meta({
        description:
          'every request must carry "Authorization: Bearer TOKEN" with the token in FILE (mode 600: yours alone)',
        flag: 'token-file',
        placeholder: 'FILE',
        shownDefault: '$UNIFIED_EXEC_TOKEN, else a random token made at start and printed',
      }),
    ),
  noAuth: off().meta(
    meta({
      description: 'require no token: every local user can then run commands as you; loopback --host only',
      flag: 'no-auth',
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
  idleTimeoutS: seconds(DEFAULT_CLIENT_IDLE_TIMEOUT_MS).meta(
    meta({
      description:
        'end a client session (and its processes) after this many seconds without a request or a call in flight',
      flag: 'idle-timeout-s',
      placeholder: 'SECONDS',
    }),
  ),
  disconnectGraceS: seconds(DEFAULT_CLIENT_DISCONNECT_GRACE_MS).meta(
    meta({
      description:
        'end a client session (and its processes), as a DELETE would, once it held its event stream open and then closed every connection and sent nothing for this many seconds (its process has gone); clients that never open the stream keep --idle-timeout-s',
      flag: 'disconnect-grace-s',
      placeholder: 'SECONDS',
    }),
  ),
  maxClients: count(DEFAULT_MAX_CLIENTS).meta(
    meta({
      description:
        'MCP client sessions at once; at the cap a new one ends the least recently active idle one, or gets 503',
      flag: 'max-clients',
      placeholder: 'N',
    }),
  ),
  maxConnections: maxConnectionsSetting,
  headersTimeoutS: headersTimeoutSetting,
  noView: off().meta(
    meta({
      description: "serve no live view: the web page at /view that lists every client's sessions and shows them",
      flag: 'no-view',
    }),
  ),
  viewInput: off().meta(
    meta({
      description: 'let the live view type into tty sessions; without it the page only watches and closes them',
      flag: 'view-input',
    }),
  ),
});
export type ServeSettings = z.output<typeof serveSettingsSchema>;

/**
 * `exec-server`: how its WebSocket listener holds up against other local users. Its --listen, --token-file and
 * --no-auth are parsed by hand (parse-args.ts): a stdio server has no listener and takes none of them.
 */
export const execServerSettingsSchema = z.strictObject({
  maxConnections: maxConnectionsSetting,
  headersTimeoutS: headersTimeoutSetting,
});
export type ExecServerSettings = z.output<typeof execServerSettingsSchema>;

/** `run`: how the one command runs. */
export const runSettingsSchema = z.strictObject({
  tty: off().meta(meta({ description: 'give the command a pseudo-terminal', flag: 'tty' })),
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
const sessionCliSchema = z.strictObject({
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
  mcp: settingLeaves(mcpSettingsSchema),
  serve: settingLeaves(serveSettingsSchema),
  run: settingLeaves(runSettingsSchema),
  execServer: settingLeaves(execServerSettingsSchema),
  config: settingLeaves(sessionCliSchema),
  manager: settingLeaves(managerSettingsSchema),
};
