import type { Calendar, CalendarUpdate } from '@sched/sdk';
import { UsageError } from '../../runtime.js';

const COLUMNS = ['id', 'name', 'timezone', 'holidays', 'dates', 'created_at'];

/** Calendars as a table: the columns every calendars verb prints (dates joined). */
export const calendarTable = (rows: Calendar[]) => ({
  rows: rows.map((c) => ({ ...c, dates: c.dates.join(' '), holidays: c.holidays ?? '' })) as Record<
    string,
    unknown
  >[],
  columns: COLUMNS,
});

/** `--date` (repeatable) or `--dates a,b`: the closed days as given. */
export function datesOf(opts: { date?: string[]; dates?: string }): string[] | undefined {
  const listed = [...(opts.date ?? []), ...(opts.dates?.split(',') ?? [])]
    .map((d) => d.trim())
    .filter(Boolean);
  return opts.date === undefined && opts.dates === undefined ? undefined : listed;
}

/** The update body from flags: only those given; `--no-holidays` removes the public holidays. */
export function buildCalendarUpdate(opts: {
  name?: string;
  timezone?: string;
  date?: string[];
  dates?: string;
  holidays?: string | false;
}): CalendarUpdate {
  const body: CalendarUpdate = {};
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.timezone !== undefined) body.timezone = opts.timezone;
  const dates = datesOf(opts);
  if (dates !== undefined) body.dates = dates;
  if (opts.holidays === false) body.holidays = null;
  else if (opts.holidays !== undefined) body.holidays = opts.holidays;
  if (Object.keys(body).length === 0)
    throw new UsageError(
      'give at least one of --name, --timezone, --date/--dates, --holidays, --no-holidays',
    );
  return body;
}
