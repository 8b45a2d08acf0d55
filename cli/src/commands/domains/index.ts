import type { Command } from 'commander';
import { configureDomainsListCommand } from './list.js';
import { configureDomainsVerifyCommand } from './verify.js';
import { configureDomainsCheckCommand } from './check.js';
import { configureDomainsGetCommand } from './get.js';
import { configureDomainsRemoveCommand } from './remove.js';

export function configureDomainsCommand(program: Command): void {
  const domains = program
    .command('domains')
    .description(
      'destination domains: verify a hostname to send it more than 10 actions a day or 100 a month',
    );
  configureDomainsListCommand(domains);
  configureDomainsVerifyCommand(domains);
  configureDomainsCheckCommand(domains);
  configureDomainsGetCommand(domains);
  configureDomainsRemoveCommand(domains);
}
