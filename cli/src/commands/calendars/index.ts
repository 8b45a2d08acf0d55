import type { Command } from 'commander';
import { configureCalendarsCreateCommand } from './create.js';
import { configureCalendarsDaysCommand } from './days.js';
import { configureCalendarsDeleteCommand } from './delete.js';
import { configureCalendarsGetCommand } from './get.js';
import { configureCalendarsListCommand } from './list.js';
import { configureCalendarsUpdateCommand } from './update.js';

/** `sched calendars <verb>`: closed days for delivery windows and quiet hours (`calendar: <id>`). */
export function configureCalendarsCommand(program: Command): void {
  const calendars = program
    .command('calendars')
    .description('closed days (your dates and public holidays) for delivery windows and quiet hours');
  configureCalendarsListCommand(calendars);
  configureCalendarsCreateCommand(calendars);
  configureCalendarsGetCommand(calendars);
  configureCalendarsUpdateCommand(calendars);
  configureCalendarsDeleteCommand(calendars);
  configureCalendarsDaysCommand(calendars);
}
