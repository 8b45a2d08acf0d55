import type { Command } from 'commander';
import { configureAccountsCreateCommand } from './create.js';
import { configureAccountsListCommand } from './list.js';
import { configureAccountsUpdateCommand } from './update.js';

/** `sched accounts <verb>` (admin): accounts, through the database. */
export function configureAccountsCommand(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts (admin: talks to the database)');
  configureAccountsCreateCommand(accounts);
  configureAccountsUpdateCommand(accounts);
  configureAccountsListCommand(accounts);
}
