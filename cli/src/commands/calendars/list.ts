import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { calendarTable } from './show.js';

export function configureCalendarsListCommand(calendars: Command): void {
  calendars
    .command('list')
    .description('every calendar of the account, newest first')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).calendars.listAll();
      print(cmd, { data }, calendarTable(data));
    });
}
