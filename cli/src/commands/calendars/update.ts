import { CalendarUpdate } from '@sched/contract';
import type { Command } from 'commander';
import { client, collectOption, parseOptions, print } from '../../runtime.js';
import { buildCalendarUpdate, calendarTable } from './show.js';

export function configureCalendarsUpdateCommand(calendars: Command): void {
  calendars
    .command('update <id>')
    .description('change the given fields of a calendar (--date/--dates replace its dates)')
    .option('--name <name>')
    .option('--timezone <iana>')
    .option('--date <YYYY-MM-DD>', 'a closed day (repeatable)', collectOption)
    .option('--dates <list>', 'closed days, comma-separated')
    .option('--holidays <region>', "a country's public holidays, e.g. US or DE-BY")
    .option('--no-holidays', 'remove the public holidays')
    .action(async (id: string, o: Parameters<typeof buildCalendarUpdate>[0], cmd: Command) => {
      const data = await client(cmd).calendars.update(
        id,
        parseOptions(CalendarUpdate, buildCalendarUpdate(o)),
      );
      print(cmd, { data }, calendarTable([data]));
    });
}
