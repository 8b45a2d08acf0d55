import { UNIT_MS } from './duration.js';
import {
  addToWallTime,
  DEFAULT_DST_POLICY,
  type DstPolicy,
  instantToWallTime,
  type PlacedInstant,
  parseTimestamp,
  readWallTime,
  type WallTime,
  wallTimeCandidates,
} from './resolve.js';
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
 *   09:00 stays at 09:00 across DST changes. A wall time in a DST gap or fold is read by the action's `dst_policy`
 *   (resolve.ts readWallTime); by default it moves forward by the gap, and an ambiguous one takes the earlier
 *   instant (the same rules as schedule presets). `m` and `h` steps never meet a gap or a fold.
 * - An occurrence has 0 runs (a gap skipped), 1, or 2 (a fold run `both` times); runs are what fires.
 * - `max_occurrences` counts completed executions including the first; `end_date` is inclusive: an occurrence
 *   due exactly at the end date still runs.
 * - Fields irrelevant to the end type (`max_occurrences` with `never`, ...) are ignored.
 */

const MIN_RECURRENCE_INTERVAL_MS = 5 * UNIT_MS.m;

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

/** What one occurrence of a series is, once the DST policy has read its wall time. */
interface OccurrenceReading {
  /** The occurrence's wall time (that of the anchor, stepped). */
  wall: WallTime;
  /** The instants it runs at, earliest first: none when a gap is skipped, two when a fold runs `both`. */
  runs: PlacedInstant[];
  /** A skipped gap: the instant it would have had with the offset of before the gap. */
  skipped: Date | null;
}

export interface SeriesSpec {
  anchor: Date;
  interval: RecurrenceInterval;
  timezone: string;
  policy?: DstPolicy | undefined;
  /**
   * The wall time occurrence 0 was asked for (`scheduled_for` without an offset), when the series was created with
   * one: steps are taken from it, so a daily 02:30 started on a gap night (run at 03:30) is 02:30 again the next
   * day. Without it, steps are taken from the anchor's own wall time.
   */
  wall?: WallTime | undefined;
}

/** Steps `d`, `w` and `M` are wall-clock steps (the only ones a DST policy applies to). */
function isCalendarUnit(unit: RecurrenceUnit): unit is 'd' | 'w' | 'M' {
  return unit === 'd' || unit === 'w' || unit === 'M';
}

function stepWall(wall: WallTime, interval: RecurrenceInterval, index: number): WallTime {
  const steps = interval.frequency * index;
  const amount =
    interval.unit === 'd' ? { days: steps } : interval.unit === 'w' ? { weeks: steps } : { months: steps };
  return addToWallTime(wall, amount);
}

/** Occurrence `index` of a series (0 = the anchor itself), read by its DST policy. */
export function occurrenceAt(spec: SeriesSpec, index: number): OccurrenceReading {
  const { anchor, interval, timezone } = spec;
  const policy = spec.policy ?? DEFAULT_DST_POLICY;
  if (index > 0 && !isCalendarUnit(interval.unit)) {
    // Elapsed time: no wall time to read, so no gap or fold to meet.
    const at = new Date(anchor.getTime() + interval.frequency * index * UNIT_MS[interval.unit]);
    return { wall: instantToWallTime(at, timezone), runs: [{ at, dst: null }], skipped: null };
  }
  const anchorWall =
    spec.wall && isCalendarUnit(interval.unit) ? spec.wall : instantToWallTime(anchor, timezone);
  if (index > 0) {
    const wall = stepWall(anchorWall, interval, index);
    return { wall, ...readWallTime(wall, timezone, policy) };
  }
  if (anchorWall === spec.wall) return { wall: anchorWall, ...readWallTime(anchorWall, timezone, policy) };
  // The anchor is run as is: re-reading its wall time would move a second (fall-back) 01:30 to the first.
  const c = wallTimeCandidates(anchorWall, timezone);
  if (c.kind !== 'fold')
    return { wall: anchorWall, runs: [{ at: new Date(anchor.getTime()), dst: null }], skipped: null };
  const isFirst = anchor.getTime() === c.first.getTime();
  const runs: PlacedInstant[] = [
    { at: new Date(anchor.getTime()), dst: isFirst ? 'fold_first' : 'fold_second' },
  ];
  if (isFirst && policy.fold === 'both') runs.push({ at: c.second, dst: 'fold_second' });
  return { wall: anchorWall, runs, skipped: null };
}

/** Instant of occurrence `occurrenceIndex` (0 = the anchor itself) by the default DST policy. */
export function nextOccurrence(args: {
  anchor: Date;
  interval: RecurrenceInterval;
  timezone: string;
  occurrenceIndex: number;
}): Date {
  return occurrenceAt(args, args.occurrenceIndex).runs[0]!.at;
}

/** One run of a series: which occurrence, its nominal (calendar) instant and where it is placed in real time. */
export interface SeriesRun extends PlacedInstant {
  index: number;
  /** The calendar instant; `at` is it placed by `place` (the identity unless a test scales time). */
  nominal: Date;
  wall: WallTime;
}

/** A gap skipped by the policy while looking for runs: no skipped occurrence can ever loop forever. */
const MAX_EMPTY_OCCURRENCES = 1_000;

/**
 * The first run placed strictly after `after`, looking from occurrence `fromIndex` on; `place` maps a nominal
 * instant to real time (Waits.along; the identity in production and in previews).
 */
export function runAfter(
  spec: SeriesSpec,
  fromIndex: number,
  after: Date,
  place: (nominal: Date) => Date = (d) => d,
): SeriesRun | null {
  let empty = 0;
  for (let index = fromIndex; ; index += 1) {
    const o = occurrenceAt(spec, index);
    if (o.runs.length === 0 && ++empty > MAX_EMPTY_OCCURRENCES) return null;
    for (const r of o.runs) {
      const at = place(r.at);
      if (at.getTime() > after.getTime()) return { index, at, nominal: r.at, dst: r.dst, wall: o.wall };
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
