import { UNIT_MS } from '../schedule/duration.js';
import { addToWallTime, instantToWallTime, wallTimeToInstant } from '../schedule/resolve.js';
import { type ClosedDays, dateOf, NO_CLOSED_DAYS, openingAt, type WindowSpec } from './window.js';

/**
 * Quiet hours: when people are not to be messaged. Their hours are read as a window's (domain/window/window.ts:
 * days, start, end, across midnight, DST edges); a day of their calendar is quiet all day (a public holiday).
 */

/** The most quiet spans one reading walks through (quiet hours that never end: every day a holiday). */
const MAX_SPANS = 800;

/**
 * When the quiet hours holding `instant` end: `instant` itself when they do not hold it. Consecutive quiet spans (a
 * holiday followed by the night's quiet hours) are walked through to the first moment that is not quiet.
 */
export function quietEnd(quiet: WindowSpec, instant: Date, closed: ClosedDays): Date {
  let at = instant;
  for (let i = 0; i < MAX_SPANS; i += 1) {
    const hours = openingAt(quiet, at, NO_CLOSED_DAYS);
    if (hours) {
      at = hours.until;
      continue;
    }
    const day = instantToWallTime(at, quiet.timezone);
    if (closed(dateOf(day), at)) {
      const midnight = { ...addToWallTime(day, { days: 1 }), hour: 0, minute: 0, second: 0, millisecond: 0 };
      at = wallTimeToInstant(midnight, quiet.timezone);
      continue;
    }
    return at;
  }
  return new Date(instant.getTime() + MAX_SPANS * UNIT_MS.d);
}
