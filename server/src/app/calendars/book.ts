import { BUILT_IN_CALENDAR_RE } from '@sched/contract';
import { instantToWallTime } from '../../domain/schedule/resolve.js';
import type { ClosedDays } from '../../domain/window/window.js';
import { dateOf } from '../../domain/window/window.js';
import { type CalendarRow, findCalendars } from '../../persistence/calendars.js';
import type { Sql } from '../../persistence/database.js';
import { isHoliday, isKnownHolidayRegion } from './holidays.js';

/**
 * The closed days a window's `calendar` names, read for the rules of domain/window (which take them as a function):
 * a built-in `holidays:<country>[-<region>]` from the holidays package, or one of the account's calendars, loaded
 * beforehand so that the placement itself stays synchronous and pure.
 */
export interface CalendarBook {
  /** The closed days of a reference; null when it names no calendar of the account nor known holidays. */
  closedDays(reference: string): ClosedDays | null;
}

/** The `<country>[-<region>]` of a built-in reference, or null. */
export function builtInRegion(reference: string): string | null {
  const m = BUILT_IN_CALENDAR_RE.exec(reference);
  return m ? (m[2] ? `${m[1]}-${m[2]}` : m[1]!).toUpperCase() : null;
}

/** A book over calendars already read (and the built-in ones, which need no read). */
export function calendarBook(rows: readonly CalendarRow[]): CalendarBook {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    closedDays(reference) {
      const region = builtInRegion(reference);
      if (region) return isKnownHolidayRegion(region) ? (date) => isHoliday(region, date) : null;
      const row = byId.get(reference);
      if (!row) return null;
      const dates = new Set(row.dates);
      // A window's day is its own time zone's; the calendar's days are its zone's: read the opening's start there.
      return (date, at) => {
        const own = at ? dateOf(instantToWallTime(at, row.timezone)) : date;
        return dates.has(own) || (row.holidays !== null && isHoliday(row.holidays, own));
      };
    },
  };
}

/** Reads the account's calendars that `references` name (ids; built-in references need no read). */
export async function loadCalendarBook(
  db: Sql,
  accountId: string,
  references: readonly (string | null | undefined)[],
): Promise<CalendarBook> {
  const ids = [...new Set(references.filter((r): r is string => !!r && builtInRegion(r) === null))];
  // Most creates name no calendar of the account: the built-in book serves them without a read.
  return ids.length === 0 ? BUILT_IN_BOOK : calendarBook(await findCalendars(db, accountId, ids));
}

/** A book that knows only the built-in calendars (a caller with no account calendars to read). */
export const BUILT_IN_BOOK: CalendarBook = calendarBook([]);

/** The calendars create bodies name (their delivery windows and quiet hours), read in one statement. */
export function calendarsNamedBy(
  db: Sql,
  accountId: string,
  bodies: readonly {
    delivery_window?: { calendar?: string | undefined } | undefined;
    gate?: { quiet_hours?: { calendar?: string | undefined } | undefined } | undefined;
  }[],
): Promise<CalendarBook> {
  return loadCalendarBook(
    db,
    accountId,
    bodies.flatMap((b) => [b.delivery_window?.calendar, b.gate?.quiet_hours?.calendar]),
  );
}
