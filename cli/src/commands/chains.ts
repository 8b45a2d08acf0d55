import type { Command } from 'commander';
import { configureChainsCreateCommand } from './chains/create.js';
import { configureChainsListCommand } from './chains/list.js';
import { configureChainsGetCommand } from './chains/get.js';
import { configureChainsCancelCommand } from './chains/cancel.js';

export function configureChainsCommands(program: Command): void {
  const chains = program.command('chains').description('chains of HTTP calls, approval gates and delays');
  configureChainsCreateCommand(chains);
  configureChainsListCommand(chains);
  configureChainsGetCommand(chains);
  configureChainsCancelCommand(chains);
}

// Renderers live in chains/show.ts; tests import them from here.
export { describeChain, readChainFile } from './chains/show.js';
