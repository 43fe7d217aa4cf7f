import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ManagerOptions } from '../manager/types.js';

/** Settings from the command line; `config` names a JSON file whose settings the flags override. */
export interface ManagerFlags {
  config?: string;
  cwd?: string;
  shell?: string;
  returnOn?: 'input-wait' | 'deadline';
  maxSessions?: number;
  envInherit?: 'all' | 'core' | 'none';
  envKeepSecrets?: boolean;
  envExclude?: string[];
  envIncludeOnly?: string[];
  envSet?: Record<string, string>;
}

const positiveInt = z.number().int().positive();

/** The config file: every key optional, unknown keys refused so a typo is an error rather than silently ignored. */
export const managerConfigSchema = z
  .object({
    cwd: z.string().min(1).optional().describe('Directory commands run in when they name none'),
    shell: z.string().min(1).optional().describe('Shell when a call names none'),
    returnOn: z.enum(['input-wait', 'deadline']).optional(),
    maxSessions: positiveInt.optional(),
    maxBackgroundPollMs: positiveInt.optional(),
    outputMaxBytes: positiveInt.optional(),
    maxConcurrentSpawns: positiveInt.optional(),
    maxTotalBufferedBytes: positiveInt.optional(),
    maxWriteBytes: positiveInt.optional(),
    env: z
      .object({
        inherit: z.enum(['all', 'core', 'none']).optional(),
        keepSecrets: z.boolean().optional(),
        exclude: z.array(z.string()).optional(),
        includeOnly: z.array(z.string()).optional(),
        set: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ManagerConfig = z.infer<typeof managerConfigSchema>;

/** Reads and checks a config file; throws an Error whose message says which file and what is wrong. */
export function readManagerConfig(
  path: string,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): ManagerConfig {
  let data: unknown;
  try {
    data = JSON.parse(read(path));
  } catch (error) {
    throw new Error(`cannot read config ${path}: ${(error as Error).message}`);
  }
  const parsed = managerConfigSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`).join('; ');
    throw new Error(`invalid config ${path}: ${problems}`);
  }
  return parsed.data;
}

/** Config file first, flags over it. Pure apart from reading the file through `read`. */
export function resolveManagerOptions(flags: ManagerFlags, read?: (path: string) => string): ManagerOptions {
  const file = flags.config === undefined ? {} : readManagerConfig(flags.config, read);
  const { shell, env: fileEnv, ...rest } = file;
  const env = {
    ...fileEnv,
    ...(flags.envInherit && { inherit: flags.envInherit }),
    ...(flags.envKeepSecrets && { keepSecrets: true }),
    ...(flags.envExclude?.length && { exclude: [...(fileEnv?.exclude ?? []), ...flags.envExclude] }),
    ...(flags.envIncludeOnly?.length && { includeOnly: [...(fileEnv?.includeOnly ?? []), ...flags.envIncludeOnly] }),
    ...(flags.envSet && Object.keys(flags.envSet).length > 0 && { set: { ...fileEnv?.set, ...flags.envSet } }),
  };
  const options: ManagerOptions = { ...rest };
  if (Object.keys(env).length > 0) options.env = env;
  const defaultShell = flags.shell ?? shell;
  if (defaultShell !== undefined) options.defaultShell = defaultShell;
  if (flags.cwd !== undefined) options.cwd = flags.cwd;
  if (flags.returnOn !== undefined) options.returnOn = flags.returnOn;
  if (flags.maxSessions !== undefined) options.maxSessions = flags.maxSessions;
  return options;
}
