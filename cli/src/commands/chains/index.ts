import type { Command } from 'commander';
import { configureChainsCreateCommand } from './create.js';
import { configureChainsListCommand } from './list.js';
import { configureChainsGetCommand } from './get.js';
import { configureChainsCancelCommand } from './cancel.js';

export function configureChainsCommand(program: Command): void {
  const chains = program.command('chains').description('chains of HTTP calls, approval gates and delays');
  configureChainsCreateCommand(chains);
  configureChainsListCommand(chains);
  configureChainsGetCommand(chains);
  configureChainsCancelCommand(chains);
}
