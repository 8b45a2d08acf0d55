import {
  isRecurrenceFinished,
  type RecurrenceEnd,
  runAfter,
  type SeriesRun,
  type SeriesSpec,
} from '../../domain/schedule/recurrence.js';
import { parseTimestamp, parseWallTime } from '../../domain/schedule/resolve.js';
import type { ActionRow } from '../../persistence/actions.js';
import type { Waits } from '../waits.js';

/** The columns of a recurring action that say when it runs. */
export type SeriesRow = Pick<
  ActionRow,
  'recurrence' | 'recurrence_anchor' | 'scheduled_for' | 'timezone' | 'recurrence_index' | 'recurrence_count'
>;

/**
 * A recurring action's series as the delivery engine, resume and the action's view all read it (one reading):
 * its occurrences from the anchor by the stored DST policy, placed in real time by the waits policy, and its end.
 */
export function seriesOf(row: SeriesRow, waits: Pick<Waits, 'along'>) {
  const r = row.recurrence!;
  const spec: SeriesSpec = {
    anchor: row.recurrence_anchor ?? row.scheduled_for,
    interval: { frequency: r.frequency, unit: r.unit },
    timezone: row.timezone,
    policy: r.dst_policy,
    wall: r.wall_time ? (parseWallTime(r.wall_time) ?? undefined) : undefined,
  };
  const end: RecurrenceEnd = {
    endType: r.end_type,
    maxOccurrences: r.max_occurrences ?? null,
    endDate: r.end_date ? parseTimestamp(r.end_date, row.timezone) : null,
  };
  const place = (nominal: Date) => waits.along(spec.anchor, nominal);
  const after = (run: Pick<SeriesRun, 'index' | 'at'>) => runAfter(spec, run.index, run.at, place);
  return {
    /** The first run after `instant`, from the current occurrence on; null when the series has ended by then. */
    runAfter(instant: Date, completed: number): SeriesRun | null {
      const run = runAfter(spec, row.recurrence_index, instant, place);
      return run && !isRecurrenceFinished(end, completed, run.nominal) ? run : null;
    },
    /**
     * The run after the current one. Runs missed while the service was down (or the action paused) are skipped:
     * the latest one due by `now` fires once, and the schedule carries on from it.
     */
    nextAfterCurrent(completed: number, now: Date): SeriesRun | null {
      let run = runAfter(spec, row.recurrence_index, row.scheduled_for, place);
      for (let next = run && after(run); run && next && next.at <= now; next = after(next)) run = next;
      return run && !isRecurrenceFinished(end, completed, run.nominal) ? run : null;
    },
    /** Up to `count` runs from `first` on (the pending one included), while the series lasts. */
    upcoming(first: Pick<SeriesRun, 'index' | 'at'>, completed: number, count: number): Date[] {
      const out: Date[] = [];
      let run: Pick<SeriesRun, 'index' | 'at'> | null = first;
      let done = completed;
      while (run && out.length < count) {
        out.push(run.at);
        done += 1;
        const next = after(run);
        run = next && !isRecurrenceFinished(end, done, next.nominal) ? next : null;
      }
      return out;
    },
  };
}
