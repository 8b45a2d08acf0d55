import { CalendarDaysQuery } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print } from '../../runtime.js';

export function configureCalendarsDaysCommand(calendars: Command): void {
  calendars
    .command('days <id>')
    .description('list the closed days of a range, with where each comes from')
    .requiredOption('--from <YYYY-MM-DD>', 'first day (inclusive)')
    .requiredOption('--to <YYYY-MM-DD>', 'last day (inclusive)')
    .action(async (id: string, o: { from: string; to: string }, cmd: Command) => {
      const days = await client(cmd).calendars.days(id, parseOptions(CalendarDaysQuery, o));
      print(cmd, days, {
        rows: days.data.map((d) => ({ ...d, name: d.name ?? '' })),
        columns: ['date', 'source', 'name'],
      });
    });
}
