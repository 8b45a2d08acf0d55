import { ContactCreate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print, UsageError } from '../../runtime.js';
import { contactTable } from './show.js';

export function configureContactsCreateCommand(contacts: Command): void {
  contacts
    .command('create')
    .description('create a contact with an email, a phone, or both')
    .requiredOption('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>', 'E.164, e.g. +15551234567')
    .action(async (opts: { name: string; email?: string; phone?: string }, cmd: Command) => {
      if (!opts.email && !opts.phone) throw new UsageError('give --email or --phone (or both)');
      const data = await client(cmd).contacts.create(parseOptions(ContactCreate, opts));
      print(cmd, { data }, contactTable([data]));
    });
}
