import { managerSettingsSchema } from '../manager/settings.js';
import { defaultText, flagUsage, settingLeaves } from './setting-table.js';

/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');

/**
 * The manager's settings as the README's markdown table: the library option and config key, the CLI flag, the
 * default as --help shows it, and the description. `npm run docs:settings` writes it between the README's markers.
 */
export function settingsMarkdown(): string {
  const rows = settingLeaves(managerSettingsSchema).map((leaf) => {
    const flag = flagUsage(leaf);
    return [
      `\`${leaf.name}\``,
      flag === undefined ? '—' : `\`${flag}\``,
      cell(defaultText(leaf)),
      cell(leaf.meta.description),
    ];
  });
  return [['setting', 'CLI flag', 'default', 'meaning'], ['---', '---', '---', '---'], ...rows]
    .map((row) => `| ${row.join(' | ')} |`)
    .join('\n');
}
