import type { Command } from 'commander';
import { UsageError } from '../../runtime.js';
import { readUserConfig, SETTING_NAMES, type UserConfig, writeUserConfig } from '../../settings.js';
import { NAMES, settingName } from './show.js';

export function configureConfigSetCommand(config: Command): void {
  config
    .command('set <name> <value>')
    .description(`save a setting: ${NAMES.join(' | ')}`)
    .action((name: string, value: string) => {
      const key = SETTING_NAMES[settingName(name)];
      if (key === 'api_url' && !/^https?:\/\/[^/]/.test(value))
        throw new UsageError('api-url must be an http(s) URL, e.g. https://sched.example.com');
      const next: UserConfig = { ...readUserConfig(), [key]: value };
      const file = writeUserConfig(next);
      process.stdout.write(`saved ${name} in ${file}\n`);
    });
}
