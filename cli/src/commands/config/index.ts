import type { Command } from 'commander';
import { configureConfigSetCommand } from './set.js';
import { configureConfigUnsetCommand } from './unset.js';
import { configureConfigGetCommand } from './get.js';
import { configureConfigPathCommand } from './path.js';

export function configureConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description('the API URL and key saved for this user (SCHED_API_URL / SCHED_API_KEY still win)');
  configureConfigSetCommand(config);
  configureConfigUnsetCommand(config);
  configureConfigGetCommand(config);
  configureConfigPathCommand(config);
}
