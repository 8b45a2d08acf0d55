import type { Command } from 'commander';
import { configPath } from '../../settings.js';

export function configureConfigPathCommand(config: Command): void {
  config
    .command('path')
    .description('print where the settings are saved')
    .action(() => {
      process.stdout.write(`${configPath()}\n`);
    });
}
