import type { Command } from 'commander';
import { client, printText } from '../../runtime.js';

export function configureCalendarsDeleteCommand(calendars: Command): void {
  calendars
    .command('delete <id>')
    .description('delete a calendar (windows naming it have no closed days of their own from then on)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).calendars.delete(id);
      printText(cmd, { deleted: id }, `deleted ${id}`);
    });
}
