import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureContactsDeleteCommand(contacts: Command): void {
  contacts
    .command('delete <id>')
    .description('delete a contact')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).contacts.delete(id);
      printText(cmd, { deleted: id }, `deleted ${id}`);
    });
}
