import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { managerSettingsSchema, type ManagerSettings } from '../manager/settings.js';
import type { ManagerOptions } from '../manager/types.js';
import { givenSettings, layerSettings, settingLeaves, type SettingLeaf } from './setting-table.js';

/** The manager's settings from the command line; `config` names a JSON file whose settings the flags override. */
export interface ManagerFlags {
  config?: string;
  settings: ManagerSettings;
}

const managerLeaves = settingLeaves(managerSettingsSchema);

/**
 * Reads and checks a config file against the settings table (keys are the setting names; unknown keys refused, so
 * a typo is an error rather than silently ignored). Returns only what the file says: the manager fills defaults.
 */
export function readManagerConfig(
  path: string,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): ManagerSettings {
  let data: unknown;
  try {
    data = JSON.parse(read(path));
  } catch (error) {
    throw new Error(`cannot read config ${path}: ${(error as Error).message}`);
  }
  const parsed = managerSettingsSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    throw new Error(
      `invalid config ${path}: ${parsed.error.issues.map((i) => describeIssue(i, managerLeaves)).join('; ')}`,
    );
  }
  return givenSettings(managerLeaves, data, parsed.data) as ManagerSettings;
}

function describeIssue(issue: z.core.$ZodIssue, leaves: SettingLeaf[]): string {
  const at = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    // Name the keys that would have been right at that level: e.g. `shell` was renamed `defaultShell`.
    const known = new Set(
      leaves.filter((l) => at.every((key, i) => l.path[i] === key)).map((l) => l.path[at.length] as string),
    );
    const unknown = issue.keys.map((key) => JSON.stringify([...at, key].join('.'))).join(', ');
    return `unknown key${issue.keys.length > 1 ? 's' : ''} ${unknown} (known: ${[...known].join(', ')})`;
  }
  return `${at.join('.') || '(top level)'}: ${issue.message}`;
}

/** Config file first, flags over it (repeated flags add to the file's lists). Pure apart from reading the file. */
export function resolveManagerOptions(flags: ManagerFlags, read?: (path: string) => string): ManagerOptions {
  const file = flags.config === undefined ? {} : readManagerConfig(flags.config, read);
  return layerSettings(managerLeaves, file, flags.settings) as ManagerSettings;
}
