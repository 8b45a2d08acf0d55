import { ContactUpdate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print } from '../../runtime.js';
import { contactTable } from './show.js';

export function configureContactsUpdateCommand(contacts: Command): void {
  contacts
    .command('update <id>')
    .description('change the given fields of a contact')
    .option('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>')
    .action(async (id: string, opts: { name?: string; email?: string; phone?: string }, cmd: Command) => {
      const data = await client(cmd).contacts.update(id, parseOptions(ContactUpdate, opts));
      print(cmd, { data }, contactTable([data]));
    });
}
