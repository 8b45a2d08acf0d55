import type { Command } from 'commander';
import { printText, UsageError } from '../runtime.js';
import {
  configPath,
  readUserConfig,
  SETTING_NAMES,
  type SettingName,
  type UserConfig,
  writeUserConfig,
} from '../settings.js';

const NAMES = Object.keys(SETTING_NAMES) as SettingName[];

function settingName(name: string): SettingName {
  if (!(name in SETTING_NAMES)) throw new UsageError(`unknown setting ${name}: one of ${NAMES.join(', ')}`);
  return name as SettingName;
}

/** Shows enough of a key to tell two apart, never the whole secret. */
function maskKey(key: string): string {
  return key.length <= 12 ? '****' : `${key.slice(0, 10)}…${key.slice(-4)}`;
}

export function configureConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('the API URL and key saved for this user (SCHED_API_URL / SCHED_API_KEY still win)');

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

  config
    .command('unset <name>')
    .description(`forget a setting: ${NAMES.join(' | ')}`)
    .action((name: string) => {
      const next: UserConfig = { ...readUserConfig() };
      delete next[SETTING_NAMES[settingName(name)]];
      writeUserConfig(next);
      process.stdout.write(`removed ${name}\n`);
    });

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

  config
    .command('path')
    .description('print where the settings are saved')
    .action(() => {
      process.stdout.write(`${configPath()}\n`);
    });
}
