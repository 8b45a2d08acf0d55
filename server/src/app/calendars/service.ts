import type { Calendar, CalendarCreate, CalendarDays, CalendarUpdate } from '@sched/contract';
import { MAX_CALENDAR_DAYS_RANGE } from '@sched/contract';
import { isValidTimezone } from '../../domain/schedule/resolve.js';
import { datesBetween } from '../../domain/window/window.js';
import {
  type CalendarRow,
  deleteCalendar,
  findCalendar,
  insertCalendar,
  listCalendars,
  updateCalendar,
} from '../../persistence/calendars.js';
import { timeOrderedId } from '../../persistence/ids.js';
import { auditFields, recordAudit } from '../audit.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { type Page, type PageQuery, pageOf, pageWindow } from '../pagination.js';
import type { Clock, Store } from '../ports.js';
import { type CalendarBook, loadCalendarBook } from './book.js';
import { holidaysIn, isKnownHolidayRegion } from './holidays.js';

function calendarView(r: CalendarRow): Calendar {
  return {
    id: r.id,
    name: r.name,
    timezone: r.timezone,
    dates: r.dates,
    holidays: r.holidays,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** The fields of a create or update checked beyond the schema: the time zone and the holidays region. */
function check(input: { timezone?: string | undefined; holidays?: string | null | undefined }): void {
  const errors: Record<string, string[]> = {};
  if (input.timezone !== undefined && !isValidTimezone(input.timezone))
    errors.timezone = [`unknown IANA timezone '${input.timezone}'`];
  if (input.holidays && !isKnownHolidayRegion(input.holidays))
    errors.holidays = [
      `no public holidays known for '${input.holidays}' (a country code, then a region: US, DE-BY)`,
    ];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

const sortedDates = (dates: readonly string[]) => [...new Set(dates)].sort();

/**
 * Calendars of closed days (docs/windows.md): every query names the caller's account (another account's id is a
 * 404), and each change commits with its audit event.
 */
export class CalendarService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** The closed days the references name, for a caller that places due times (the schedule preview). */
  book(accountId: string, references: readonly (string | null | undefined)[]): Promise<CalendarBook> {
    return loadCalendarBook(this.deps.store.sql, accountId, references);
  }

  async list(accountId: string, q: PageQuery): Promise<Page<Calendar>> {
    const { rows, ...counted } = await listCalendars(this.deps.store.sql, accountId, pageWindow(q));
    return pageOf(rows.map(calendarView), counted, q);
  }

  async get(accountId: string, id: string): Promise<Calendar> {
    const row = await findCalendar(this.deps.store.sql, accountId, id);
    if (!row) throw new NotFoundError('calendar');
    return calendarView(row);
  }

  async create(accountId: string, input: CalendarCreate): Promise<Calendar> {
    check(input);
    const now = this.deps.clock();
    return this.deps.store.transaction(async (db) => {
      const row = await insertCalendar(db, {
        id: timeOrderedId(now.getTime()),
        account_id: accountId,
        name: input.name,
        timezone: input.timezone ?? 'UTC',
        dates: sortedDates(input.dates ?? []),
        holidays: input.holidays ? input.holidays.toUpperCase() : null,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(db, accountId, {
        action: 'calendar.create',
        resource: { type: 'calendar', id: row.id },
        details: { name: row.name, fields: auditFields(input) },
      });
      return calendarView(row);
    });
  }

  async update(accountId: string, id: string, input: CalendarUpdate): Promise<Calendar> {
    check(input);
    const now = this.deps.clock();
    return this.deps.store.transaction(async (db) => {
      const row = await updateCalendar(db, accountId, id, {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
        ...(input.dates !== undefined ? { dates: sortedDates(input.dates) } : {}),
        ...(input.holidays !== undefined
          ? { holidays: input.holidays ? input.holidays.toUpperCase() : null }
          : {}),
        updated_at: now,
      });
      if (!row) throw new NotFoundError('calendar');
      await recordAudit(db, accountId, {
        action: 'calendar.update',
        resource: { type: 'calendar', id },
        details: { name: row.name, fields: auditFields(input) },
      });
      return calendarView(row);
    });
  }

  async delete(accountId: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (db) => {
      const row = await deleteCalendar(db, accountId, id);
      if (!row) throw new NotFoundError('calendar');
      await recordAudit(db, accountId, {
        action: 'calendar.delete',
        resource: { type: 'calendar', id },
        details: { name: row.name },
      });
    });
  }

  /** `GET /v1/calendars/{id}/days`: the closed days of a range, each with where it comes from. */
  async days(accountId: string, id: string, q: { from: string; to: string }): Promise<CalendarDays> {
    const row = await findCalendar(this.deps.store.sql, accountId, id);
    if (!row) throw new NotFoundError('calendar');
    if (q.to < q.from) throw ValidationError.field('to', 'must not be before from');
    const span = datesBetween(q.from, q.to, MAX_CALENDAR_DAYS_RANGE + 2).length;
    if (span > MAX_CALENDAR_DAYS_RANGE + 1)
      throw ValidationError.field('to', `must be at most ${MAX_CALENDAR_DAYS_RANGE} days after from`);
    const own = new Set(row.dates);
    const holidays = new Map<string, string>();
    if (row.holidays)
      for (let year = Number(q.from.slice(0, 4)); year <= Number(q.to.slice(0, 4)); year += 1)
        for (const h of holidaysIn(row.holidays, year)) holidays.set(h.date, h.name);
    const data = datesBetween(q.from, q.to)
      .filter((d) => own.has(d) || holidays.has(d))
      .map((date) =>
        own.has(date)
          ? { date, source: 'dates' as const, name: null }
          : { date, source: 'holidays' as const, name: holidays.get(date)! },
      );
    return { data, meta: { from: q.from, to: q.to, timezone: row.timezone } };
  }
}
