import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { contactTable } from './show.js';

export function configureContactsListCommand(contacts: Command): void {
  contacts
    .command('list')
    .description('every contact, by name')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).contacts.list();
      print(cmd, { data }, contactTable(data));
    });
}
