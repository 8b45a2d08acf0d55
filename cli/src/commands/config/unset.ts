import type { Command } from 'commander';
import { readUserConfig, SETTING_NAMES, type UserConfig, writeUserConfig } from '../../settings.js';
import { NAMES, settingName } from './show.js';

export function configureConfigUnsetCommand(config: Command): void {
  config
    .command('unset <name>')
    .description(`forget a setting: ${NAMES.join(' | ')}`)
    .action((name: string) => {
      const next: UserConfig = { ...readUserConfig() };
      delete next[SETTING_NAMES[settingName(name)]];
      writeUserConfig(next);
      process.stdout.write(`removed ${name}\n`);
    });
}
