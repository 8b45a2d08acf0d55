import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { contactTable } from './show.js';

export function configureContactsGetCommand(contacts: Command): void {
  contacts
    .command('get <id>')
    .description('one contact')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).contacts.get(id);
      print(cmd, { data }, contactTable([data]));
    });
}
