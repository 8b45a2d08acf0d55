import type { Command } from 'commander';
import { configureContactsCreateCommand } from './create.js';
import { configureContactsDeleteCommand } from './delete.js';
import { configureContactsGetCommand } from './get.js';
import { configureContactsListCommand } from './list.js';
import { configureContactsUpdateCommand } from './update.js';

/** `sched contacts <verb>`: reusable recipients (`contact:<id>:email` in approvals). */
export function configureContactsCommand(program: Command): void {
  const contacts = program.command('contacts').description('reusable recipients');
  configureContactsListCommand(contacts);
  configureContactsCreateCommand(contacts);
  configureContactsGetCommand(contacts);
  configureContactsUpdateCommand(contacts);
  configureContactsDeleteCommand(contacts);
}
