import { CalendarCreate } from '@sched/contract';
import type { Command } from 'commander';
import { client, collectOption, parseOptions, print } from '../../runtime.js';
import { calendarTable, datesOf } from './show.js';

export function configureCalendarsCreateCommand(calendars: Command): void {
  calendars
    .command('create')
    .description("create a calendar of closed days: your dates and, optionally, a country's public holidays")
    .requiredOption('--name <name>')
    .option('--timezone <iana>', 'the time zone its days are days of (default UTC)')
    .option('--date <YYYY-MM-DD>', 'a closed day (repeatable)', collectOption)
    .option('--dates <list>', 'closed days, comma-separated')
    .option('--holidays <region>', "a country's public holidays, e.g. US or DE-BY")
    .addHelpText(
      'after',
      '\nExample:\n  $ sched calendars create --name Office --timezone America/New_York --date 2026-12-24 --holidays US',
    )
    .action(
      async (
        o: { name: string; timezone?: string; date?: string[]; dates?: string; holidays?: string },
        cmd: Command,
      ) => {
        const body = parseOptions(CalendarCreate, {
          name: o.name,
          ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
          dates: datesOf(o) ?? [],
          ...(o.holidays !== undefined ? { holidays: o.holidays } : {}),
        });
        const data = await client(cmd).calendars.create(body);
        print(cmd, { data }, calendarTable([data]));
      },
    );
}
