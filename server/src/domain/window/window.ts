import type { Weekday } from '@sched/contract';
import { UNIT_MS } from '../schedule/duration.js';
import { addToWallTime, instantToWallTime, type WallTime, wallTimeToInstant } from '../schedule/resolve.js';

/**
 * Delivery windows and quiet hours: the hours of the week when something may happen (a delivery) or may not (a
 * message to a person). One reading of a window for every caller: the create, retries, recurrences, reschedule,
 * run now, the preview and approval messages.
 *
 * Decided rules:
 * - A window opens on each of its `days` (every day when absent) at `start` and closes at `end`, wall times in its
 *   `timezone`. `end` before `start` runs across midnight: the opening belongs to the day it starts on (a Friday
 *   22:00-06:00 window is open Friday night into Saturday morning). `start` equal to `end` is the whole day.
 * - A day its calendar lists as closed has no opening (for one across midnight: the opening that starts that day).
 * - Window edges are wall times read as the schedule preview reads them (domain/schedule/resolve.ts, the default DST
 *   policy): an edge in a spring-forward gap moves on by the gap's length, one in a fall-back fold is its first instant.
 */
export interface WindowSpec {
  timezone: string;
  /** Empty or absent: every day. */
  days?: readonly Weekday[] | null;
  start: string;
  end: string;
}

/**
 * Whether the opening of a local date (`YYYY-MM-DD`, in the window's time zone) is closed by the window's calendar;
 * `at` is when that opening would start (a calendar kept in another time zone reads its own date there).
 */
export type ClosedDays = (date: string, at?: Date) => boolean;

export const NO_CLOSED_DAYS: ClosedDays = () => false;

/** How far ahead an opening is looked for; a window closed longer than this (every day a holiday) never opens. */
export const MAX_SEARCH_DAYS = 800;

const WEEKDAY_ORDER: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** `HH:MM` as minutes of the day, or null. */
export function parseClock(text: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** `YYYY-MM-DD` of a wall time. */
export function dateOf(wall: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  return `${String(wall.year).padStart(4, '0')}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
}

/** `mon`..`sun` of a date (ISO weekday). */
export function weekdayOf(wall: Pick<WallTime, 'year' | 'month' | 'day'>): Weekday {
  const utcDay = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay(); // 0 = Sunday
  return WEEKDAY_ORDER[(utcDay + 6) % 7]!;
}

export interface Opening {
  /** The local date the opening belongs to. */
  date: string;
  from: Date;
  until: Date;
}

/** The opening of `window` that starts on the local date `day` (time of day ignored), or null when that day has none. */
export function openingOn(window: WindowSpec, day: WallTime, closed: ClosedDays): Opening | null {
  const date = dateOf(day);
  if (window.days && window.days.length > 0 && !window.days.includes(weekdayOf(day))) return null;
  const start = parseClock(window.start)!;
  const end = parseClock(window.end)!;
  const midnight = { ...day, hour: 0, minute: 0, second: 0, millisecond: 0 };
  const at = (base: WallTime, minutes: number) =>
    wallTimeToInstant({ ...base, hour: Math.floor(minutes / 60), minute: minutes % 60 }, window.timezone);
  const from = at(midnight, start);
  if (closed(date, from)) return null;
  const untilDay = end <= start ? addToWallTime(midnight, { days: 1 }) : midnight;
  return { date, from, until: at(untilDay, end) };
}

/** The opening `instant` falls in, or null when the window is closed then. */
export function openingAt(window: WindowSpec, instant: Date, closed: ClosedDays): Opening | null {
  const today = instantToWallTime(instant, window.timezone);
  // An opening across midnight that started yesterday may still be open.
  for (const day of [addToWallTime(today, { days: -1 }), today]) {
    const o = openingOn(window, day, closed);
    if (o && o.from.getTime() <= instant.getTime() && instant.getTime() < o.until.getTime()) return o;
  }
  return null;
}

/**
 * The first instant at or after `instant` when the window is open: `instant` itself when it is open then, else the
 * start of the next opening; null when none starts within MAX_SEARCH_DAYS.
 */
export function nextOpening(window: WindowSpec, instant: Date, closed: ClosedDays): Date | null {
  if (openingAt(window, instant, closed)) return instant;
  const today = instantToWallTime(instant, window.timezone);
  for (let i = 0; i <= MAX_SEARCH_DAYS; i += 1) {
    const o = openingOn(window, addToWallTime(today, { days: i }), closed);
    if (o && o.from.getTime() > instant.getTime()) return o.from;
  }
  return null;
}

/** When the opening holding `instant` closes (the end of quiet hours); `instant` itself when it is not inside one. */
export function closesAt(window: WindowSpec, instant: Date, closed: ClosedDays): Date {
  return openingAt(window, instant, closed)?.until ?? instant;
}

/** The local dates from `from` to `to` (both `YYYY-MM-DD`, inclusive), at most `limit` of them. */
export function datesBetween(from: string, to: string, limit = 3660): string[] {
  const out: string[] = [];
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = start; t <= end && out.length < limit; t += UNIT_MS.d)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** A due time placed in a window: where it fires, and the deferral when the window moved it. */
export interface Placement {
  at: Date;
  deferred: { from: Date; to: Date } | null;
}

/**
 * Where an attempt due at `due` fires: at `due` when the window is open then, else at its next opening (a deferral).
 * Null when the window never opens again within the search.
 */
export function placeInWindow(window: WindowSpec, due: Date, closed: ClosedDays): Placement | null {
  const at = nextOpening(window, due, closed);
  if (!at) return null;
  return { at, deferred: at.getTime() === due.getTime() ? null : { from: due, to: at } };
}

/** The most occurrences one placement skips before it gives up (a window that no occurrence ever meets). */
export const MAX_SKIPPED_RUNS = 1000;

/**
 * Where the next run of a series fires, given its window: from `first` on, a run outside the window is skipped
 * (`outside: skip`, listed in `skipped`) or moved to the next opening (`defer`). `after` gives the run after one
 * (null when the series has ended). Null when the series ends, or no run meets the window, first.
 */
export function placeRun<R extends { at: Date }>(
  first: R | null,
  after: (run: R) => R | null,
  window: WindowSpec & { outside: 'defer' | 'skip' },
  closed: ClosedDays,
): { run: R; placement: Placement; skipped: Date[] } | null {
  const skipped: Date[] = [];
  for (let run = first; run && skipped.length <= MAX_SKIPPED_RUNS; run = after(run)) {
    if (window.outside === 'skip' && !openingAt(window, run.at, closed)) {
      skipped.push(run.at);
      continue;
    }
    const placement = placeInWindow(window, run.at, closed);
    return placement ? { run, placement, skipped } : null;
  }
  return null;
}
