import type { Command } from 'commander';
import { printText } from '../../runtime.js';
import { readUserConfig, SETTING_NAMES } from '../../settings.js';
import { NAMES, maskKey, settingName } from './show.js';

export function configureConfigGetCommand(config: Command): void {
  config
    .command('get [name]')
    .description('show the saved settings (the key masked)')
    .action((name: string | undefined, _o: unknown, cmd: Command) => {
      const saved = readUserConfig();
      const shown: Record<string, string | null> = {};
      for (const setting of name ? [settingName(name)] : NAMES) {
        const value = saved[SETTING_NAMES[setting]];
        shown[setting] = value === undefined ? null : setting === 'api-key' ? maskKey(value) : value;
      }
      const text = Object.entries(shown)
        .map(([k, v]) => `${k}  ${v ?? '-'}`)
        .join('\n');
      printText(cmd, shown, text);
    });
}
