import type { Contact } from '@sched/sdk';
import type { Command } from 'commander';
import { client, print, UsageError, wantsJson } from '../runtime.js';

const COLUMNS = ['id', 'name', 'email', 'phone', 'created_at'];
const table = (rows: Contact[]) => ({ rows: rows as unknown as Record<string, unknown>[], columns: COLUMNS });

export function configureContactsCommands(program: Command): void {
  const contacts = program.command('contacts').description('reusable recipients');
  contacts.command('list').action(async (_o: unknown, cmd: Command) => {
    const data = await client(cmd).contacts.list();
    print(cmd, { data }, table(data));
  });
  contacts
    .command('create')
    .requiredOption('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>', 'E.164, e.g. +15551234567')
    .action(async (opts: { name: string; email?: string; phone?: string }, cmd: Command) => {
      if (!opts.email && !opts.phone) throw new UsageError('give --email or --phone (or both)');
      const data = await client(cmd).contacts.create(opts);
      print(cmd, { data }, table([data]));
    });
  contacts.command('get <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    const data = await client(cmd).contacts.get(id);
    print(cmd, { data }, table([data]));
  });
  contacts
    .command('update <id>')
    .option('--name <name>')
    .option('--email <email>')
    .option('--phone <phone>')
    .action(async (id: string, opts: { name?: string; email?: string; phone?: string }, cmd: Command) => {
      const data = await client(cmd).contacts.update(id, opts);
      print(cmd, { data }, table([data]));
    });
  contacts.command('delete <id>').action(async (id: string, _o: unknown, cmd: Command) => {
    await client(cmd).contacts.delete(id);
    if (wantsJson(cmd)) print(cmd, { deleted: id });
    else process.stdout.write(`deleted ${id}\n`);
  });
}
