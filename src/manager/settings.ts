import { resolve } from 'node:path';
import { z } from 'zod';
import { OUTPUT_MAX_BYTES } from '../buffer/head-tail-buffer.js';
import {
  DEFAULT_MAX_BACKGROUND_POLL_MS,
  DEFAULT_MAX_CONCURRENT_SPAWNS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_TOTAL_BUFFERED_BYTES,
  DEFAULT_MAX_WRITE_BYTES,
  MIN_EMPTY_POLL_YIELD_MS,
  PRUNE_PROTECTED_RECENT,
} from './constants.js';
import { describeIssue, expected, invalidArgument } from './errors.js';
import { APPROVAL_POLICIES, type ApprovalPolicy } from '../approval/policy-names.js';
import { validateDomainPattern } from '../sandbox/domain-match.js';
import { NETWORK_MODES, SANDBOX_BACKENDS, SANDBOX_MODES, isSandboxed, type SandboxPolicy } from '../sandbox/policy.js';
import { executorNameProblem, parseExecutorUrl } from '../executors/urls.js';
import type { Executor } from '../spawn/types.js';

/**
 * What each setting says about itself, beside its zod type and default: every surface (the library's
 * ManagerOptions, the config file, CLI flags, --help, the README's option table) is derived from this table.
 */
export type SettingMeta = {
  /** One line for --help and the README. */
  description: string;
  /** The CLI flag without dashes; absent: config file and library only. */
  flag?: string;
  /** What the flag's value looks like in --help, e.g. `N`, `DIR`. Absent for boolean flags. */
  placeholder?: string;
  /** The default as people read it, where the value itself would say little (e.g. `process.cwd()`). */
  shownDefault?: string;
  /** A boolean whose flag turns it off (`--no-shell-snapshot` sets `shellSnapshot: false`). */
  negatedFlag?: boolean;
};

const meta = (m: SettingMeta) => m;

const positiveInt = (fallback: number) =>
  z
    .number(expected('a whole number of 1 or more'))
    .int(expected('a whole number of 1 or more'))
    .positive(expected('a whole number of 1 or more'))
    .default(fallback);
const text = () => z.string(expected('a non-empty string')).min(1, expected('a non-empty string'));
const globs = () => z.array(z.string(expected('a glob pattern')), expected('a list of glob patterns'));

/** Which variables sessions inherit (see spawn/env.ts for how they are applied). */
export const envSettings = z
  .strictObject({
    inherit: z
      .enum(['all', 'core', 'none'], expected('all, core or none'))
      .default('all')
      .meta(
        meta({
          description:
            'which variables of this environment sessions inherit: all, core (HOME, PATH, USER, ...) or none',
          flag: 'env-inherit',
          placeholder: 'MODE',
        }),
      ),
    keepSecrets: z
      .boolean(expected('true or false'))
      .default(false)
      .meta(
        meta({
          description: 'also pass variables that look like credentials (see Environment in docs/tools.md)',
          flag: 'env-keep-secrets',
        }),
      ),
    exclude: globs()
      .default([])
      .meta(
        meta({
          description: 'drop variables whose names match (case-insensitive; * and ?); repeatable',
          flag: 'env-exclude',
          placeholder: 'GLOB',
        }),
      ),
    includeOnly: globs()
      .optional()
      .meta(
        meta({
          description: 'keep only variables whose names match; repeatable',
          flag: 'env-include-only',
          placeholder: 'GLOB',
          shownDefault: 'every name',
        }),
      ),
    set: z
      .record(z.string(), z.string(expected('a string')), expected('an object of NAME: value'))
      .default({})
      .meta(
        meta({
          description: 'set a variable in every session; repeatable',
          flag: 'env-set',
          placeholder: 'NAME=VALUE',
        }),
      ),
  })
  .prefault({});

/** Why an executor URL cannot be used, or undefined. */
function executorUrlProblem(url: string): string | undefined {
  try {
    parseExecutorUrl(url);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function isExecutor(value: unknown): value is Executor {
  return typeof value === 'object' && value !== null && typeof (value as Executor).start === 'function';
}

/** Every setting of the manager: name, type, default, description, CLI flag. Config file keys are the same names. */
export const managerSettingsSchema = z.strictObject({
  cwd: text()
    .default(() => process.cwd())
    .meta(
      meta({
        description: 'directory commands run in when they name none; relative workdirs start here',
        flag: 'cwd',
        placeholder: 'DIR',
        shownDefault: 'the current directory',
      }),
    ),
  defaultShell: text()
    .default(() => process.env.SHELL || '/bin/bash')
    .meta(
      meta({
        description: 'shell for calls that name none',
        flag: 'shell',
        placeholder: 'PATH',
        shownDefault: '$SHELL, else /bin/bash',
      }),
    ),
  returnOn: z
    .enum(['input-wait', 'deadline'], expected('input-wait or deadline'))
    .default('input-wait')
    .meta(
      meta({
        description:
          'input-wait: a live tty call answers as soon as the program waits for input; deadline: only at exit or the yield deadline, as Codex does',
        flag: 'return-on',
        placeholder: 'MODE',
      }),
    ),
  maxSessions: positiveInt(DEFAULT_MAX_SESSIONS).meta(
    meta({
      description: `live sessions kept before one is pruned (the ${PRUNE_PROTECTED_RECENT} most recently used never are; exited ones go first); serve: across all its clients, each pruning only its own`,
      flag: 'max-sessions',
      placeholder: 'N',
    }),
  ),
  maxBackgroundPollMs: positiveInt(DEFAULT_MAX_BACKGROUND_POLL_MS).meta(
    meta({
      description: `longest wait of an empty write_stdin poll, in ms (never below ${MIN_EMPTY_POLL_YIELD_MS}); write_stdin's description quotes it`,
      flag: 'max-background-poll-ms',
      placeholder: 'MS',
    }),
  ),
  outputMaxBytes: positiveInt(OUTPUT_MAX_BYTES).meta(
    meta({
      description: 'output buffered per session between calls, in bytes (the first and the last half are kept)',
      flag: 'output-max-bytes',
      placeholder: 'BYTES',
    }),
  ),
  maxConcurrentSpawns: positiveInt(DEFAULT_MAX_CONCURRENT_SPAWNS).meta(
    meta({ description: 'programs started at once', flag: 'max-concurrent-spawns', placeholder: 'N' }),
  ),
  maxTotalBufferedBytes: positiveInt(DEFAULT_MAX_TOTAL_BUFFERED_BYTES).meta(
    meta({
      description:
        'unread output across sessions above which new sessions are refused (LIMIT_EXCEEDED); serve: across all its clients',
      flag: 'max-total-buffered-bytes',
      placeholder: 'BYTES',
    }),
  ),
  maxWriteBytes: positiveInt(DEFAULT_MAX_WRITE_BYTES).meta(
    meta({
      description: 'largest `chars` of one write_stdin, in UTF-8 bytes (LIMIT_EXCEEDED above)',
      flag: 'max-write-bytes',
      placeholder: 'BYTES',
    }),
  ),
  env: envSettings,
  sandbox: z
    .enum(SANDBOX_MODES, expected(SANDBOX_MODES.join(', ')))
    .default('danger-full-access')
    .meta(
      meta({
        description:
          'read-only, workspace-write (the working directory, /tmp, $TMPDIR and --writable-root dirs) or danger-full-access (no sandbox); needs bubblewrap or Landlock',
        flag: 'sandbox',
        placeholder: 'MODE',
        shownDefault: 'workspace-write for mcp and serve; danger-full-access for run and the library',
      }),
    ),
  sandboxBackend: z
    .enum(SANDBOX_BACKENDS, expected(SANDBOX_BACKENDS.join(' or ')))
    .optional()
    .meta(
      meta({
        description:
          'how the sandbox is made: bwrap (bubblewrap: namespaces and mounts) or landlock (our launcher alone: no package, no user namespaces; see docs/sandbox.md for what it covers)',
        flag: 'sandbox-backend',
        placeholder: 'BACKEND',
        shownDefault: 'bwrap where it works here, else landlock',
      }),
    ),
  network: z
    .enum(NETWORK_MODES, expected('off or on'))
    .default('off')
    .meta(
      meta({
        description: 'network inside the sandbox: off (not even loopback) or on; danger-full-access always has it',
        flag: 'network',
        placeholder: 'MODE',
      }),
    ),
  allowedDomains: z
    .array(
      z.string(expected('a domain')).refine((domain) => validateDomainPattern(domain) === undefined, {
        error: (issue) => validateDomainPattern(String(issue.input)) ?? 'expected a domain',
      }),
      expected('a list of domains'),
    )
    .default([])
    .meta(
      meta({
        description:
          'with network off, still allow HTTP(S) to DOMAIN (`example.com`, or `*.example.com` for its subdomains) through a filtering proxy; repeatable',
        flag: 'allowed-domain',
        placeholder: 'DOMAIN',
      }),
    ),
  writableRoots: z
    .array(text(), expected('a list of directories'))
    .default([])
    .meta(
      meta({
        description: 'workspace-write: another directory commands may write to; repeatable',
        flag: 'writable-root',
        placeholder: 'DIR',
      }),
    ),
  executors: z
    .record(
      z.string().refine((name) => executorNameProblem(name) === undefined, {
        error: (issue) => executorNameProblem(String(issue.input)) ?? 'expected an executor name',
      }),
      z.union(
        [
          z.string(expected('a URL')).refine((url) => executorUrlProblem(url) === undefined, {
            error: (issue) => executorUrlProblem(String(issue.input)) ?? 'expected an executor URL',
          }),
          // The library may hand over an executor it made itself (a RemoteExecutor with its own timeouts, say).
          z.custom<Executor>(isExecutor, expected('an executor URL or an Executor')),
        ],
        expected('an executor URL or an Executor'),
      ),
      expected('an object of NAME: URL'),
    )
    .default({})
    .meta(
      meta({
        description:
          'where sessions may run: local, ws://HOST:PORT[?token-file=FILE] (an exec-server), docker://CONTAINER or docker-image://IMAGE[?socket=PATH]; repeatable, the first is the default (see Run sessions elsewhere)',
        flag: 'executor',
        placeholder: 'NAME=URL',
        shownDefault: 'local=local',
      }),
    ),
  defaultExecutor: text()
    .optional()
    .meta(
      meta({
        description: 'the executor of calls that name none',
        flag: 'default-executor',
        placeholder: 'NAME',
        shownDefault: 'the first --executor',
      }),
    ),
  screens: z
    .boolean(expected('true or false'))
    .default(true)
    .meta(
      meta({
        description:
          'keep a screen for each tty session, so replies show what a full-screen program (vim, less, top) draws instead of its escape sequences; the flag turns that off, and Output is then always the raw bytes',
        flag: 'no-screens',
        negatedFlag: true,
        shownDefault: 'screens on',
      }),
    ),
  shellSnapshot: z
    .boolean(expected('true or false'))
    .default(true)
    .meta(
      meta({
        description:
          'run a login command (login: true, the default) as a plain shell that loads a snapshot of the login profile, taken once; the flag runs a real login shell every time (see Shell snapshots in docs/tools.md)',
        flag: 'no-shell-snapshot',
        negatedFlag: true,
        shownDefault: 'snapshots on',
      }),
    ),
  approvalPolicy: z
    .enum(APPROVAL_POLICIES, expected(APPROVAL_POLICIES.join(', ')))
    .optional()
    .meta(
      meta({
        description:
          'when to ask the person before running a command: untrusted, on-request, on-failure or never (see Approvals in docs/sandbox.md)',
        flag: 'ask-for-approval',
        placeholder: 'POLICY',
        shownDefault:
          'on-request under a sandbox (so under mcp and serve); none without one: nothing is asked or refused',
      }),
    ),
});

/** The settings a caller may give; every one is optional. */
export type ManagerSettings = z.input<typeof managerSettingsSchema>;
/** The settings in force: every default filled in. */
export type ResolvedSettings = z.output<typeof managerSettingsSchema>;

/** Checks the settings and fills in their defaults; a wrong one is an INVALID_ARGUMENT error naming it. */
export function resolveSettings(settings: unknown): ResolvedSettings {
  const result = managerSettingsSchema.safeParse(settings ?? {}, { reportInput: true });
  if (result.success) return result.data;
  throw invalidArgument(
    `Invalid manager settings: ${result.error.issues.map((issue) => describeIssue(issue, 'setting')).join('; ')}`,
  );
}

/** The sandbox the settings describe, its paths resolved against `cwd`; undefined under danger-full-access. */
export function sandboxPolicyOf(settings: ResolvedSettings): SandboxPolicy | undefined {
  const policy: SandboxPolicy = {
    mode: settings.sandbox,
    network: settings.network,
    allowedDomains: settings.allowedDomains,
    workspace: resolve(settings.cwd),
    writableRoots: settings.writableRoots.map((root) => resolve(settings.cwd, root)),
    ...(settings.sandboxBackend ? { backend: settings.sandboxBackend } : {}),
  };
  return isSandboxed(policy) ? policy : undefined;
}

/**
 * The approval policy in force: the one given, else on-request under a sandbox (a model may ask to leave it, and
 * somebody must say yes), else none (approvals off).
 */
export function approvalPolicyOf(settings: ResolvedSettings): ApprovalPolicy | undefined {
  return settings.approvalPolicy ?? (sandboxPolicyOf(settings) ? 'on-request' : undefined);
}
