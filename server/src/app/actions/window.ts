import type { DeliveryWindow, QuietHours } from '@sched/contract';
import { isValidTimezone } from '../../domain/schedule/resolve.js';
import {
  type ClosedDays,
  NO_CLOSED_DAYS,
  type Placement,
  placeInWindow,
  placeRun,
} from '../../domain/window/window.js';
import type { ActionRow } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredWindow, StoredWindowState } from '../../persistence/entities/stored.js';
import { type CalendarBook, loadCalendarBook } from '../calendars/book.js';

/** How many skipped occurrences an action keeps (its view's `skipped_by_window`). */
const SKIPS_KEPT = 20;

/**
 * A window as given (a delivery window or quiet hours) checked against the action's time zone and the calendars
 * the account has, with its defaults filled in; errors go to `fail` under `field`.
 */
export function prepareWindow<T extends DeliveryWindow | QuietHours>(
  input: T,
  actionTimezone: string,
  book: CalendarBook,
  field: string,
  fail: (field: string, message: string) => void,
): (T & { timezone: string }) | null {
  const timezone = input.timezone ?? actionTimezone;
  let ok = true;
  if (!isValidTimezone(timezone)) {
    if (input.timezone !== undefined) fail(`${field}.timezone`, `unknown IANA timezone '${timezone}'`);
    ok = false;
  }
  if (input.calendar !== undefined && book.closedDays(input.calendar) === null) {
    fail(
      `${field}.calendar`,
      `no calendar '${input.calendar}' in this account, nor a holidays region the server knows`,
    );
    ok = false;
  }
  return ok ? { ...input, timezone } : null;
}

/** A delivery window as stored: its timezone and `outside` always set. */
export function storedWindow(w: DeliveryWindow & { timezone: string }): StoredWindow {
  return {
    timezone: w.timezone,
    ...(w.days ? { days: [...new Set(w.days)] } : {}),
    start: w.start,
    end: w.end,
    ...(w.calendar ? { calendar: w.calendar } : {}),
    outside: w.outside ?? 'defer',
  };
}

/** The closed days of a window's calendar; none when it names none (or one deleted since). */
export function closedDaysOf(window: Pick<StoredWindow, 'calendar'>, book: CalendarBook): ClosedDays {
  return (window.calendar ? book.closedDays(window.calendar) : null) ?? NO_CLOSED_DAYS;
}

/** An action row's window with its closed days, read for a placement inside a transaction; null without one. */
export async function windowOfRow(
  db: Sql,
  row: Pick<ActionRow, 'account_id' | 'delivery_window'>,
): Promise<{ window: StoredWindow; closed: ClosedDays } | null> {
  const window = row.delivery_window;
  if (!window) return null;
  const book = await loadCalendarBook(db, row.account_id, [window.calendar]);
  return { window, closed: closedDaysOf(window, book) };
}

/** Places a due time in a row's window (read by windowOfRow); unchanged without a window or an opening. */
export function placeDue(w: { window: StoredWindow; closed: ClosedDays } | null, due: Date): Placement {
  if (!w) return { at: due, deferred: null };
  return placeInWindow(w.window, due, w.closed) ?? { at: due, deferred: null };
}

/** The window state after a placement: the pending attempt's deferral replaced, skipped occurrences added. */
export function nextWindowState(
  previous: StoredWindowState | null,
  placement: Pick<Placement, 'deferred'>,
  skipped: readonly Date[] = [],
): StoredWindowState {
  const kept = [...(previous?.skipped ?? []), ...skipped.map((d) => d.toISOString())].slice(-SKIPS_KEPT);
  const deferred = placement.deferred
    ? { from: placement.deferred.from.toISOString(), to: placement.deferred.to.toISOString() }
    : null;
  return { deferred, skipped: kept };
}

/**
 * Where an attempt of `row` due at `due` really fires (a retry, a resume, run now): at the next opening of its
 * window, with the window state that records the deferral. Without a window: at `due`, nothing recorded.
 */
export async function placeRowAttempt(
  db: Sql,
  row: Pick<ActionRow, 'account_id' | 'delivery_window' | 'window_state'>,
  due: Date,
): Promise<{ at: Date; changes: { window_state?: StoredWindowState } }> {
  const w = await windowOfRow(db, row);
  if (!w) return { at: due, changes: {} };
  const placement = placeDue(w, due);
  return { at: placement.at, changes: { window_state: nextWindowState(row.window_state, placement) } };
}

/**
 * The next run of a recurring `row` under its window: `first` itself, moved to the next opening, or (`outside:
 * skip`) the first later run inside the window, the skipped ones recorded. `after` gives the series' run after one.
 */
export async function placeRowRun<R extends { at: Date }>(
  db: Sql,
  row: Pick<ActionRow, 'account_id' | 'delivery_window' | 'window_state'>,
  first: R | null,
  after: (run: R) => R | null,
): Promise<{ run: R; at: Date; changes: { window_state?: StoredWindowState } } | null> {
  const w = await windowOfRow(db, row);
  if (!w || !first) return first ? { run: first, at: first.at, changes: {} } : null;
  const placed = placeRun(first, after, w.window, w.closed);
  if (!placed) return null;
  return {
    run: placed.run,
    at: placed.placement.at,
    changes: { window_state: nextWindowState(row.window_state, placed.placement, placed.skipped) },
  };
}
