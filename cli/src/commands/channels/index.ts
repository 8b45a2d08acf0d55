import type { Command } from 'commander';
import { configureChannelsListCommand } from './list.js';
import { configureChannelsCreateCommand } from './create.js';
import { configureChannelsGetCommand } from './get.js';
import { configureChannelsUpdateCommand } from './update.js';
import { configureChannelsDeleteCommand } from './delete.js';

export function configureChannelsCommand(program: Command): void {
  const channels = program
    .command('channels')
    .description('Slack and Teams destinations for approvals: recipients `channel:<id>` (Business plan)');
  configureChannelsListCommand(channels);
  configureChannelsCreateCommand(channels);
  configureChannelsGetCommand(channels);
  configureChannelsUpdateCommand(channels);
  configureChannelsDeleteCommand(channels);
}
