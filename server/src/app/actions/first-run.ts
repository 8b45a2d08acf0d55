import type { DstPolicy } from '@sched/contract';
import {
  isRecurrenceFinished,
  occurrenceAt,
  type RecurrenceEnd,
  type SeriesSpec,
} from '../../domain/schedule/recurrence.js';
import { parseTimestamp } from '../../domain/schedule/resolve.js';
import { placeRun } from '../../domain/window/window.js';
import type { StoredRecurrence, StoredWindow, StoredWindowState } from '../../persistence/entities/stored.js';
import type { CalendarBook } from '../calendars/book.js';
import { closedDaysOf, nextWindowState } from './window.js';

interface Run {
  index: number;
  at: Date;
}

/**
 * Where a new action's first attempt fires under its delivery window (the create and reschedule): its time, or the
 * next opening; for a series with `outside: skip`, its first occurrence inside the window (`index`, `nominal`).
 */
export function placeFirstRun(args: {
  window: StoredWindow;
  closed: CalendarBook;
  at: Date;
  recurrence:
    | (Pick<StoredRecurrence, 'frequency' | 'unit' | 'end_type' | 'max_occurrences' | 'end_date'> & {
        timezone: string;
        policy?: DstPolicy | undefined;
      })
    | null;
}):
  | { ok: true; at: Date; nominal: Date; index: number; state: StoredWindowState }
  | { ok: false; message: string } {
  const { window, at, recurrence } = args;
  const closed = closedDaysOf(window, args.closed);
  let after: (run: Run) => Run | null = () => null;
  if (recurrence) {
    const spec: SeriesSpec = {
      anchor: at,
      interval: { frequency: recurrence.frequency, unit: recurrence.unit },
      timezone: recurrence.timezone,
      policy: recurrence.policy
        ? { gap: recurrence.policy.gap ?? 'same_offset', fold: recurrence.policy.fold ?? 'first' }
        : undefined,
    };
    const end: RecurrenceEnd = {
      endType: recurrence.end_type,
      maxOccurrences: recurrence.max_occurrences ?? null,
      endDate: recurrence.end_date ? parseTimestamp(recurrence.end_date, recurrence.timezone) : null,
    };
    after = (run) => {
      for (let index = run.index + 1; index < run.index + 50; index += 1) {
        const o = occurrenceAt(spec, index).runs[0];
        if (!o) continue;
        return isRecurrenceFinished(end, 0, o.at) ? null : { index, at: o.at };
      }
      return null;
    };
  }
  const placed = placeRun<Run>({ index: 0, at }, after, window, closed);
  if (!placed)
    return { ok: false, message: 'the window never opens for this schedule (no opening found ahead)' };
  return {
    ok: true,
    at: placed.placement.at,
    nominal: placed.run.at,
    index: placed.run.index,
    state: nextWindowState(null, placed.placement, placed.skipped),
  };
}
