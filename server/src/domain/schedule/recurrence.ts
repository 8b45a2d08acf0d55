import { UNIT_MS } from './duration.js';
import { addToWallTime, instantToWallTime, parseTimestamp, wallTimeToInstant } from './resolve.js';
import {
  RECURRENCE_END_TYPES,
  RECURRENCE_UNITS,
  type RecurrenceEndType,
  type RecurrenceUnit,
} from '@sched/contract';

/**
 * Recurrence (`recurrence` / `repeat`): every `frequency` `unit`s, until an end condition.
 *
 * Decided rules:
 * - Occurrence n (0 = the first scheduled time, the anchor) is computed from the anchor, never from the
 *   previous occurrence, so errors and month clamping never accumulate (Jan 31 -> Feb 28 -> Mar 31).
 * - `m` and `h` are exact elapsed time. `d`, `w` and `M` are wall-clock steps in the action's timezone: a daily
 *   09:00 stays at 09:00 across DST changes; a wall time in a DST gap moves forward by the gap, an ambiguous one
 *   takes the earlier instant (the same rules as schedule presets).
 * - `max_occurrences` counts completed executions including the first; `end_date` is inclusive: an occurrence
 *   due exactly at the end date still runs.
 * - Fields irrelevant to the end type (`max_occurrences` with `never`, ...) are ignored.
 */

export const MIN_RECURRENCE_INTERVAL_MS = 5 * UNIT_MS.m;

/** The API shape of `recurrence`, before validation. */
export interface RecurrenceInput {
  frequency?: unknown;
  unit?: unknown;
  end_type?: unknown;
  max_occurrences?: unknown;
  end_date?: unknown;
}

export interface RecurrenceInterval {
  frequency: number;
  unit: RecurrenceUnit;
}

export type FieldErrors = Record<string, string[]>;

const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
const absent = (value: unknown) => value === undefined || value === null;

/** Field errors keyed `recurrence.<field>`; an empty object when valid. */
export function validateRecurrence(r: RecurrenceInput, now: Date, timezone = 'UTC'): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    const key = `recurrence.${field}`;
    errors[key] = [...(errors[key] ?? []), message];
  };

  const unitValid = (RECURRENCE_UNITS as readonly unknown[]).includes(r.unit);
  if (!unitValid) add('unit', `Must be one of ${RECURRENCE_UNITS.join(', ')}`);
  if (!isInt(r.frequency) || r.frequency < 1) {
    add('frequency', 'Must be an integer of at least 1');
  } else if (unitValid && r.frequency * unitMs(r.unit as RecurrenceUnit) < MIN_RECURRENCE_INTERVAL_MS) {
    add('frequency', 'The interval must be at least 5 minutes');
  }

  if (!(RECURRENCE_END_TYPES as readonly unknown[]).includes(r.end_type)) {
    add('end_type', `Must be one of ${RECURRENCE_END_TYPES.join(', ')}`);
  } else if (r.end_type === 'count') {
    if (absent(r.max_occurrences)) {
      add('max_occurrences', 'Required when end_type is count');
    } else if (!isInt(r.max_occurrences) || r.max_occurrences < 2) {
      add('max_occurrences', 'Must be an integer of at least 2');
    }
  } else if (r.end_type === 'date') {
    const endDate = typeof r.end_date === 'string' ? parseTimestamp(r.end_date, timezone) : null;
    if (absent(r.end_date)) add('end_date', 'Required when end_type is date');
    else if (!endDate) add('end_date', 'Must be an ISO 8601 timestamp');
    else if (endDate.getTime() <= now.getTime()) add('end_date', 'Must be in the future');
  }
  return errors;
}

/** Shortest length of one step of the unit; months count as 28 days for the minimum-interval check. */
function unitMs(unit: RecurrenceUnit): number {
  return unit === 'M' ? 28 * UNIT_MS.d : UNIT_MS[unit];
}

/** Instant of occurrence `occurrenceIndex` (0 = the anchor itself). */
export function nextOccurrence(args: {
  anchor: Date;
  interval: RecurrenceInterval;
  timezone: string;
  occurrenceIndex: number;
}): Date {
  const { anchor, interval, timezone, occurrenceIndex } = args;
  // The anchor is returned as is: re-reading its wall time would move a second (fall-back) 01:30 to the first.
  if (occurrenceIndex === 0) return new Date(anchor.getTime());
  const steps = interval.frequency * occurrenceIndex;
  switch (interval.unit) {
    case 'm':
    case 'h':
      return new Date(anchor.getTime() + steps * UNIT_MS[interval.unit]);
    case 'd':
    case 'w':
    case 'M': {
      const amount =
        interval.unit === 'd'
          ? { days: steps }
          : interval.unit === 'w'
            ? { weeks: steps }
            : { months: steps };
      return wallTimeToInstant(addToWallTime(instantToWallTime(anchor, timezone), amount), timezone);
    }
  }
}

export interface RecurrenceEnd {
  endType: RecurrenceEndType;
  maxOccurrences?: number | null;
  endDate?: Date | null;
}

/** True when no further occurrence should be scheduled after `completedCount` executions. */
export function isRecurrenceFinished(end: RecurrenceEnd, completedCount: number, nextAt: Date): boolean {
  switch (end.endType) {
    case 'never':
      return false;
    case 'count':
      return end.maxOccurrences != null && completedCount >= end.maxOccurrences;
    case 'date':
      return end.endDate != null && nextAt.getTime() > end.endDate.getTime();
  }
}
