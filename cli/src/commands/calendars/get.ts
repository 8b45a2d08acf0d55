import type { Command } from 'commander';
import { client, print } from '../../runtime.js';
import { calendarTable } from './show.js';

export function configureCalendarsGetCommand(calendars: Command): void {
  calendars
    .command('get <id>')
    .description('show a calendar')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).calendars.get(id);
      print(cmd, { data }, calendarTable([data]));
    });
}
