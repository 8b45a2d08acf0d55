import type { DstEffect, SchedulePreview, SchedulePreviewParsed } from '@sched/contract';
import { planLimits } from '../../domain/quota/plans.js';
import { UNIT_MS } from '../../domain/schedule/duration.js';
import {
  isRecurrenceFinished,
  occurrenceAt,
  type SeriesSpec,
  validateRecurrence,
} from '../../domain/schedule/recurrence.js';
import {
  DEFAULT_DST_POLICY,
  type DstPolicy,
  formatOffset,
  formatWallTime,
  instantToWallTime,
  isValidTimezone,
  offsetAt,
  parseTimestamp,
  resolveSchedule,
  type WallTime,
  wallTimeCandidates,
} from '../../domain/schedule/resolve.js';
import { openingAt, placeInWindow, type ClosedDays } from '../../domain/window/window.js';
import type { StoredWindow } from '../../persistence/entities/stored.js';
import type { Principal } from '../accounts.js';
import { BUILT_IN_BOOK, type CalendarBook } from '../calendars/book.js';
import { closedDaysOf, prepareWindow, storedWindow } from '../actions/window.js';
import { ValidationError } from '../errors.js';

type Occurrence = SchedulePreview['occurrences'][number];

/** A preview never looks further than this for runs (a `skip` policy cannot loop it). */
const MAX_OCCURRENCES_READ = 10_000;
/** Far enough that resolution never refuses a time for the horizon: the preview warns instead. */
const NO_HORIZON_DAYS = 100 * 366;

/**
 * `POST /v1/schedules/preview`: the runs a schedule makes, by the same functions the create and the delivery engine
 * use (domain/schedule/), in calendar time: SCHED_TIME_SCALE is not applied. Pure apart from the clock.
 */
export function previewSchedule(
  body: SchedulePreviewParsed,
  principal: Pick<Principal, 'plan'>,
  now: Date,
  calendars: CalendarBook = BUILT_IN_BOOK,
): SchedulePreview {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const timezone = body.schedule?.timezone ?? body.timezone ?? 'UTC';
  const timezoneField = body.schedule?.timezone ? 'schedule.timezone' : 'timezone';
  if (!isValidTimezone(timezone)) fail(timezoneField, `unknown IANA timezone '${timezone}'`);
  let at = now;
  if (!errors[timezoneField]) {
    const resolved = resolveSchedule(
      {
        preset: body.schedule?.preset,
        wait: body.schedule?.wait,
        scheduledFor: body.scheduled_for,
        timezone,
      },
      now,
      { horizonDays: NO_HORIZON_DAYS },
    );
    if (resolved.ok) at = resolved.at;
    else fail(resolved.field === 'timezone' ? timezoneField : resolved.field, resolved.message);
  }
  if (body.recurrence) {
    for (const [path, messages] of Object.entries(validateRecurrence(body.recurrence, now, timezone)))
      for (const m of messages) fail(path, m);
  }
  const given = body.delivery_window
    ? prepareWindow(body.delivery_window, timezone, calendars, 'delivery_window', fail)
    : null;
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const warnings: string[] = [];
  const policy: DstPolicy = body.dst_policy ?? DEFAULT_DST_POLICY;
  let occurrences: Occurrence[];
  if (!body.recurrence) {
    occurrences = [entry(at, timezone, null)];
    if (body.dst_policy)
      warnings.push('dst_policy applies to recurring schedules; a one-time time is an instant');
  } else {
    // Runs a window skips are not counted: read enough of the series to show `count` besides them.
    const read = given?.outside === 'skip' ? { ...body, count: Math.min(body.count * 10, 1000) } : body;
    occurrences = seriesRuns(read, at, timezone, policy, warnings);
  }

  if (given) {
    const window = storedWindow(given);
    occurrences = inWindow(
      occurrences,
      {
        window,
        closed: closedDaysOf(window, calendars),
        recurring: !!body.recurrence,
        count: body.count,
        timezone,
      },
      warnings,
    );
  }

  const horizonDays = planLimits(principal.plan).horizonDays;
  if (at.getTime() - now.getTime() > horizonDays * UNIT_MS.d)
    warnings.push(
      `${minutes(instantToWallTime(at, timezone))} is beyond the ${horizonDays}-day schedule horizon of the ${principal.plan} plan: creating this action would be refused`,
    );
  return { timezone, tzdata: process.versions.tz ?? 'unknown', occurrences, warnings };
}

function seriesRuns(
  body: SchedulePreviewParsed,
  at: Date,
  timezone: string,
  policy: DstPolicy,
  warnings: string[],
): Occurrence[] {
  const r = body.recurrence!;
  const interval = { frequency: r.frequency, unit: r.unit };
  // Anchored on the resolved instant, as the create does (app/actions/prepare.ts).
  const spec: SeriesSpec = { anchor: at, interval, timezone, policy };
  const end = {
    endType: r.end_type,
    maxOccurrences: r.max_occurrences ?? null,
    endDate: r.end_date ? parseTimestamp(r.end_date, timezone) : null,
  };
  const out: Occurrence[] = [];
  let runs = 0;
  for (let index = 0; index < MAX_OCCURRENCES_READ && runs < body.count; index += 1) {
    const o = occurrenceAt(spec, index);
    if (o.runs.length === 0) {
      if (end.endDate && o.skipped && o.skipped > end.endDate) break;
      out.push(skippedEntry(o.wall, timezone, warnings));
      continue;
    }
    const listed: Date[] = [];
    let ended = false;
    for (const run of o.runs) {
      if (run.at.getTime() < at.getTime()) continue;
      if (runs >= body.count || isRecurrenceFinished(end, runs, run.at)) {
        ended = true;
        break;
      }
      out.push(entry(run.at, timezone, run.dst));
      listed.push(run.at);
      runs += 1;
    }
    const dst = o.runs.find((run) => run.dst)?.dst;
    if (dst && listed.length > 0) warnings.push(dstWarning(o.wall, timezone, dst, listed));
    if (ended) break;
  }
  if ((r.unit === 'm' || r.unit === 'h') && out.length > 1) {
    const change = out.findIndex((o) => o.offset !== out[0]!.offset);
    if (change > 0)
      warnings.push(
        `the UTC offset changes from ${out[0]!.offset} to ${out[change]!.offset} before ${out[change]!.local}; a recurrence in ${r.unit === 'h' ? 'hours' : 'minutes'} counts elapsed time, so its wall-clock time moves`,
      );
  }
  return out;
}

function entry(at: Date, timezone: string, dst: DstEffect | null): Occurrence {
  return {
    at: at.toISOString(),
    local: formatWallTime({ ...instantToWallTime(at, timezone), millisecond: 0 }),
    offset: formatOffset(offsetAt(at, timezone)),
    dst,
    window: null,
    due: null,
  };
}

/**
 * The runs as the delivery window places them, by the rules the create and the delivery engine use
 * (domain/window): a run outside it is moved to the next opening, or left out with `outside: skip` (a series only;
 * a skipped run is listed but not counted: `count` runs are shown besides them).
 */
function inWindow(
  runs: Occurrence[],
  ctx: { window: StoredWindow; closed: ClosedDays; recurring: boolean; count: number; timezone: string },
  warnings: string[],
): Occurrence[] {
  const { window, closed } = ctx;
  const out: Occurrence[] = [];
  const when = (d: Date) => `${minutes(instantToWallTime(d, window.timezone))} ${window.timezone}`;
  let counted = 0;
  for (const o of runs) {
    if (counted >= ctx.count) break;
    if (o.dst === 'gap_skipped') {
      out.push(o);
      continue;
    }
    const due = new Date(o.at);
    if (ctx.recurring && window.outside === 'skip' && !openingAt(window, due, closed)) {
      out.push({ ...o, window: 'skipped' });
      warnings.push(
        `${when(due)} is outside the delivery window${closedReason(window, due, closed)}; skipped`,
      );
      continue;
    }
    const placed = placeInWindow(window, due, closed);
    if (!placed) {
      warnings.push(`${when(due)}: the delivery window never opens after it; it would not run`);
      continue;
    }
    counted += 1;
    if (!placed.deferred) {
      out.push(o);
      continue;
    }
    out.push({ ...entry(placed.at, ctx.timezone, o.dst), window: 'deferred', due: due.toISOString() });
    warnings.push(
      `${when(due)} is outside the delivery window${closedReason(window, due, closed)}; deferred to ${when(placed.at)}`,
    );
  }
  return out;
}

/** ` (2027-07-05 is a closed day of its calendar)` when the calendar, not the hours, closed that day. */
function closedReason(window: StoredWindow, due: Date, closed: ClosedDays): string {
  const date = instantToWallTime(due, window.timezone);
  const day = `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
  return closed(day, due) ? ` (${day} is a closed day of ${window.calendar})` : '';
}

/** A wall time the policy skips: listed to show the gap, never run. */
function skippedEntry(wall: WallTime, timezone: string, warnings: string[]): Occurrence {
  const c = wallTimeCandidates(wall, timezone);
  const at = c.kind === 'gap' ? c.sameOffset : new Date(NaN);
  warnings.push(dstWarning(wall, timezone, 'gap_skipped', []));
  return {
    at: at.toISOString(),
    local: formatWallTime({ ...wall, millisecond: 0 }),
    offset: formatOffset(offsetAt(new Date(at.getTime() - UNIT_MS.d), timezone)),
    dst: 'gap_skipped',
    window: null,
    due: null,
  };
}

/** `2027-03-14T02:30` (seconds only when set). */
function minutes(wall: WallTime): string {
  const text = formatWallTime({ ...wall, millisecond: 0 });
  return wall.second ? text : text.slice(0, 16);
}

function dstWarning(wall: WallTime, timezone: string, dst: DstEffect, runs: Date[]): string {
  const clock = (d: Date) => minutes(instantToWallTime(d, timezone)).slice(11);
  const offsets = runs.map((d) => formatOffset(offsetAt(d, timezone)));
  switch (dst) {
    case 'gap_shifted':
      return `${minutes(wall)} does not exist in ${timezone}; shifted to ${clock(runs[0]!)}`;
    case 'gap_skipped':
      return `${minutes(wall)} does not exist in ${timezone}; skipped`;
    case 'fold_first':
    case 'fold_second': {
      const which =
        runs.length > 1
          ? `both (${offsets.join(' and ')})`
          : `the ${dst === 'fold_first' ? 'first' : 'second'} (${offsets[0]})`;
      return `${minutes(wall)} happens twice in ${timezone}; runs at ${which}`;
    }
  }
}
