import { DateTime, IANAZone } from 'luxon';
import { parseDuration, UNIT_MS } from './duration.js';
import {
  CALENDAR_PRESETS,
  type DstEffect,
  type DstFoldPolicy,
  type DstGapPolicy,
  OFFSET_PRESETS,
  SCHEDULE_PRESETS,
} from '@sched/contract';

/**
 * Schedule resolution: turns `schedule.preset`, `schedule.wait` or `scheduled_for` into one instant.
 *
 * Decided rules:
 * - Exactly one of preset, wait and scheduledFor must be given; none or several is an error on `schedule`
 *   (no silent precedence: a request naming two times is a bug in the caller).
 * - Calendar presets (`tomorrow`, `next_week`, `next_<weekday>`) keep the current wall-clock time of day in
 *   the timezone. `next_<weekday>` is the next such day strictly after today (on a Monday, `next_monday` is in
 *   7 days); `next_week` is `next_monday`.
 * - `1h` `2h` `4h` `1d` `3d` `1w` and `wait` are exact elapsed durations from now, not wall-clock shifts.
 * - A wall time that does not exist (DST spring-forward gap) moves forward by the length of the gap
 *   (02:30 on a 02:00→03:00 night becomes 03:30); an ambiguous wall time (fall-back) takes the earlier instant.
 * - `scheduledFor` is an exact instant: ISO 8601, and without an offset it is UTC whatever the timezone says
 *   (`parseScheduledFor`). Up to `pastToleranceMs` (default 60 s) in the past it resolves to `now`; further in the
 *   past is an error on `scheduled_for`.
 * - Later than now + horizonDays is an error on the field that gave the time.
 */

const DEFAULT_PAST_TOLERANCE_MS = 60_000;

export interface ScheduleInput {
  preset?: string | null | undefined;
  wait?: string | null | undefined;
  scheduledFor?: string | null | undefined;
  timezone: string;
}

export interface ScheduleLimits {
  horizonDays: number;
  /** Named in the horizon's message, so the caller sees which plan limits it. */
  plan?: string;
  pastToleranceMs?: number;
}

export type ScheduleResolution = { ok: true; at: Date } | { ok: false; field: string; message: string };

/** A local date and time with no zone attached. Month is 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

// Checking a zone builds an Intl.DateTimeFormat (costly on every create); the tz database does not change while
// the process runs, so each name is checked once. Bounded so arbitrary input cannot grow it without limit.
const zoneValidity = new Map<string, boolean>();

export function isValidTimezone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64) return false;
  let valid = zoneValidity.get(tz);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(tz);
    if (zoneValidity.size < 1000) zoneValidity.set(tz, valid);
  }
  return valid;
}

/** How wall times in DST gaps (spring forward) and folds (fall back) are read (`dst_policy`). */
export interface DstPolicy {
  gap: DstGapPolicy;
  fold: DstFoldPolicy;
}

/**
 * The behaviour sched always had, and the default: a wall time in a gap is read with the offset in force before the
 * gap (it moves forward by the gap's length: 02:30 on a 02:00->03:00 night is 03:30); an ambiguous one takes the
 * earlier instant.
 */
export const DEFAULT_DST_POLICY: Readonly<DstPolicy> = Object.freeze({ gap: 'same_offset', fold: 'first' });

/** One instant a wall time is read as, and how DST touched it. */
export interface PlacedInstant {
  at: Date;
  dst: DstEffect | null;
}

/**
 * Every way the clocks of `timezone` can show `wall`: exactly one instant (`exact`), two (`fold`, earlier first), or
 * none (`gap`, with the gap's first instant after it and the instant the wall time denotes with the offset of
 * before the gap). No offset table of ours: luxon reads the platform's tz database.
 */
export type WallTimeCandidates =
  | { kind: 'exact'; at: Date }
  | { kind: 'fold'; first: Date; second: Date }
  | { kind: 'gap'; transition: Date; sameOffset: Date };

export function wallTimeCandidates(wall: WallTime, timezone: string): WallTimeCandidates {
  const zone = IANAZone.create(timezone);
  const asUtc = Date.UTC(
    wall.year,
    wall.month - 1,
    wall.day,
    wall.hour,
    wall.minute,
    wall.second,
    wall.millisecond,
  );
  // Offsets change at most once within two days, so the offsets a day either side are the only candidates.
  const before = zone.offset(asUtc - UNIT_MS.d);
  const after = zone.offset(asUtc + UNIT_MS.d);
  const matches = [...new Set([before, after])]
    .map((offset) => asUtc - offset * UNIT_MS.m)
    .filter((instant) => zone.offset(instant) * UNIT_MS.m === asUtc - instant)
    .sort((a, b) => a - b);
  if (matches.length === 1) return { kind: 'exact', at: new Date(matches[0]!) };
  if (matches.length === 2)
    return { kind: 'fold', first: new Date(matches[0]!), second: new Date(matches[1]!) };
  // In a gap: read with the offset of before the gap it lands exactly the gap's length later, past the transition.
  const sameOffset = asUtc - before * UNIT_MS.m;
  // The transition lies between the reading with the later offset and that one: found by bisection (whole ms).
  let lo = asUtc - after * UNIT_MS.m;
  let hi = sameOffset;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offset(mid) === before) lo = mid;
    else hi = mid;
  }
  return { kind: 'gap', transition: new Date(hi), sameOffset: new Date(sameOffset) };
}

/**
 * The instants at which a schedule showing `wall` runs under `policy`: one, none (a gap skipped: `skipped` is where
 * it would have been with the offset of before the gap) or two (a fold run `both` times).
 */
export function readWallTime(
  wall: WallTime,
  timezone: string,
  policy: DstPolicy = DEFAULT_DST_POLICY,
): { runs: PlacedInstant[]; skipped: Date | null } {
  const c = wallTimeCandidates(wall, timezone);
  switch (c.kind) {
    case 'exact':
      return { runs: [{ at: c.at, dst: null }], skipped: null };
    case 'fold': {
      const first = { at: c.first, dst: 'fold_first' as const };
      const second = { at: c.second, dst: 'fold_second' as const };
      const runs = policy.fold === 'first' ? [first] : policy.fold === 'second' ? [second] : [first, second];
      return { runs, skipped: null };
    }
    case 'gap':
      if (policy.gap === 'skip') return { runs: [], skipped: c.sameOffset };
      return {
        runs: [{ at: policy.gap === 'shift_forward' ? c.transition : c.sameOffset, dst: 'gap_shifted' }],
        skipped: null,
      };
  }
}

/** The instant at which the clocks of `timezone` show `wall`, by the default DST policy (always exactly one). */
export function wallTimeToInstant(wall: WallTime, timezone: string): Date {
  return readWallTime(wall, timezone).runs[0]!.at;
}

/** A wall time as ISO 8601 text without an offset (`2027-03-14T02:30:00`; milliseconds only when set). */
export function formatWallTime(wall: WallTime): string {
  const t = DateTime.fromObject(wall, { zone: 'utc' });
  return t.toFormat(wall.millisecond ? "yyyy-MM-dd'T'HH:mm:ss.SSS" : "yyyy-MM-dd'T'HH:mm:ss");
}

/** The wall time of ISO 8601 text read without regard to any offset; null when not ISO 8601. */
export function parseWallTime(text: string): WallTime | null {
  const local = DateTime.fromISO(text.replace(/(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/, ''), { zone: 'utc' });
  if (!local.isValid) return null;
  const { year, month, day, hour, minute, second, millisecond } = local;
  return { year, month, day, hour, minute, second, millisecond };
}

/** Whether ISO 8601 text names a wall time (no offset) rather than an instant. */
export function isWallTimeText(text: string): boolean {
  const timePart = text.split(/[Tt]/)[1];
  return timePart === undefined || !OFFSET_RE.test(timePart);
}

/** A UTC offset in minutes as `+HH:MM` / `-HH:MM`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The UTC offset of `timezone` at `instant`, in minutes. */
export function offsetAt(instant: Date, timezone: string): number {
  return IANAZone.create(timezone).offset(instant.getTime());
}

/** The wall-clock reading of `instant` in `timezone`. */
export function instantToWallTime(instant: Date, timezone: string): WallTime {
  const local = DateTime.fromJSDate(instant, { zone: timezone });
  const { year, month, day, hour, minute, second, millisecond } = local;
  return { year, month, day, hour, minute, second, millisecond };
}

/** Calendar arithmetic on a wall time (months clamp to the month's last day, as luxon does). */
export function addToWallTime(
  wall: WallTime,
  amount: { days?: number; weeks?: number; months?: number },
): WallTime {
  const shifted = DateTime.fromObject(wall, { zone: 'utc' }).plus(amount);
  const { year, month, day, hour, minute, second, millisecond } = shifted;
  return { year, month, day, hour, minute, second, millisecond };
}

const OFFSET_RE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** The form nearly every client sends (`toISOString()`'s): UTC, to the second or millisecond. */
const UTC_INSTANT_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;

/**
 * That form read without luxon, which costs a create more than the rest of its schedule: null when the text is not of
 * that form or names a moment that does not exist (a 31st of November, 24:00, a leap second), which luxon then judges.
 */
function utcInstant(text: string): Date | null {
  const m = UTC_INSTANT_RE.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[];
  // Date.UTC reads years below 100 as 19xx; such dates are luxon's to read.
  if (year! < 1000) return null;
  const ms = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
  const at = new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms));
  const exact =
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === month! - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second;
  return exact ? at : null;
}

/** Parses an ISO 8601 timestamp; one without an offset is read in `timezone`. `null` when not ISO 8601. */
export function parseTimestamp(text: string, timezone: string): Date | null {
  if (typeof text !== 'string') return null;
  const utc = utcInstant(text);
  if (utc) return utc;
  const timePart = text.split(/[Tt]/)[1];
  if (timePart !== undefined && OFFSET_RE.test(timePart)) {
    const parsed = DateTime.fromISO(text, { setZone: true });
    return parsed.isValid ? parsed.toJSDate() : null;
  }
  const local = DateTime.fromISO(text, { zone: 'utc' });
  if (!local.isValid) return null;
  const { year, month, day, hour, minute, second, millisecond } = local;
  return wallTimeToInstant({ year, month, day, hour, minute, second, millisecond }, timezone);
}

/**
 * `scheduled_for` is an exact UTC timestamp in the interface, so text without an offset is UTC, not wall time in the
 * action's timezone: a client that sets `timezone` for its presets or its recurrence and sends `09:00:00` means
 * 09:00Z. The timezone still governs presets and the steps of a recurrence. `null` when not ISO 8601.
 */
export function parseScheduledFor(text: string): Date | null {
  return parseTimestamp(text, 'UTC');
}

function resolvePreset(preset: string, now: Date, timezone: string): Date | null {
  if ((OFFSET_PRESETS as readonly string[]).includes(preset)) {
    return new Date(now.getTime() + parseDuration(preset)!);
  }
  if (!(CALENDAR_PRESETS as readonly string[]).includes(preset)) return null;
  const today = instantToWallTime(now, timezone);
  if (preset === 'tomorrow') return wallTimeToInstant(addToWallTime(today, { days: 1 }), timezone);
  const weekday = preset === 'next_week' ? 'monday' : preset.slice('next_'.length);
  const target = WEEKDAYS.indexOf(weekday as (typeof WEEKDAYS)[number]) + 1; // luxon: Monday = 1
  const currentWeekday = DateTime.fromJSDate(now, { zone: timezone }).weekday;
  const daysAhead = (target - currentWeekday + 7) % 7 || 7;
  return wallTimeToInstant(addToWallTime(today, { days: daysAhead }), timezone);
}

const given = (value: string | null | undefined): value is string => value !== undefined && value !== null;
const fail = (field: string, message: string): ScheduleResolution => ({ ok: false, field, message });

export function resolveSchedule(input: ScheduleInput, now: Date, limits: ScheduleLimits): ScheduleResolution {
  const forms = [input.preset, input.wait, input.scheduledFor].filter(given).length;
  if (forms === 0) {
    return fail('schedule', 'A schedule is required: give schedule.preset, schedule.wait or scheduled_for');
  }
  if (forms > 1) return fail('schedule', 'Give only one of schedule.preset, schedule.wait and scheduled_for');
  if (!isValidTimezone(input.timezone)) {
    return fail('timezone', `Unknown timezone "${input.timezone}" (expected an IANA name)`);
  }

  let field: string;
  let at: Date;
  if (given(input.preset)) {
    field = 'schedule.preset';
    const resolved = resolvePreset(input.preset, now, input.timezone);
    if (!resolved) return fail(field, `Unknown preset; use one of ${SCHEDULE_PRESETS.join(', ')}`);
    at = resolved;
  } else if (given(input.wait)) {
    field = 'schedule.wait';
    const ms = parseDuration(input.wait);
    if (ms === null) return fail(field, 'Must be a positive integer followed by s, m, h, d or w (e.g. 10m)');
    at = new Date(now.getTime() + ms);
  } else {
    field = 'scheduled_for';
    const parsed = parseScheduledFor(input.scheduledFor!);
    if (!parsed) return fail(field, 'Must be an ISO 8601 timestamp');
    const tolerance = limits.pastToleranceMs ?? DEFAULT_PAST_TOLERANCE_MS;
    if (parsed.getTime() < now.getTime() - tolerance) return fail(field, 'Must not be in the past');
    at = parsed.getTime() < now.getTime() ? new Date(now.getTime()) : parsed;
  }

  if (at.getTime() - now.getTime() > limits.horizonDays * UNIT_MS.d) {
    const whose = limits.plan
      ? `the schedule horizon of the ${limits.plan} plan`
      : "the plan's schedule horizon";
    return fail(field, `Must be within ${limits.horizonDays} days (${whose})`);
  }
  return { ok: true, at };
}
