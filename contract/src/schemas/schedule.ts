import { z } from 'zod';
import { DST_EFFECTS } from '../vocabulary.js';
import { DstPolicy, Recurrence, Schedule } from './action.js';
import { Timestamp } from './common.js';
import { DeliveryWindow } from './window.js';

/** `POST /v1/schedules/preview`: the schedule fields of `POST /v1/actions`, and how many runs to show. */
export const SchedulePreviewBody = z
  .object({
    schedule: Schedule.optional(),
    scheduled_for: z.string().max(64).optional().meta({
      description:
        'Exact ISO 8601 time; without an offset it is UTC (`timezone` governs presets and recurrence only).',
    }),
    timezone: z.string().max(64).optional(),
    recurrence: Recurrence.optional(),
    dst_policy: DstPolicy.optional(),
    delivery_window: DeliveryWindow.optional().meta({
      description:
        'Show where each run really fires: moved to the next opening (`deferred`) or left out (`skipped`).',
    }),
    count: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .meta({ description: 'How many runs to list (1-100).' }),
  })
  .meta({ id: 'SchedulePreviewRequest' });
export type SchedulePreviewBody = z.input<typeof SchedulePreviewBody>;
export type SchedulePreviewParsed = z.output<typeof SchedulePreviewBody>;

export const ScheduleOccurrence = z
  .object({
    at: Timestamp.meta({ description: 'The instant, UTC.' }),
    local: z.string().meta({
      description:
        'The wall time in the timezone, without offset (`2027-03-14T03:30:00`). For a `gap_skipped` entry, the wall time that does not exist.',
    }),
    offset: z.string().meta({ description: 'The UTC offset at `at` (`-04:00`).' }),
    dst: z.enum(DST_EFFECTS).nullable().meta({
      description:
        'How DST touched this occurrence: `gap_shifted` (its wall time does not exist; moved by `dst_policy.gap`), `gap_skipped` (left out: listed to show the gap, never run, not counted), `fold_first` / `fold_second` (its wall time happens twice; this is that instant). null: untouched.',
    }),
    window: z.enum(['deferred', 'skipped']).nullable().meta({
      description:
        'How the delivery window touched this run: `deferred` (`at` is the opening it moves to; `due` when it was due), `skipped` (`outside: skip`: never run, not counted). null: untouched or no window.',
    }),
    due: Timestamp.nullable().meta({
      description: 'A `deferred` run: when it was due before the window moved it.',
    }),
  })
  .meta({ id: 'ScheduleOccurrence' });
export type ScheduleOccurrence = z.infer<typeof ScheduleOccurrence>;

export const SchedulePreview = z
  .object({
    timezone: z.string(),
    tzdata: z.string().meta({ description: 'The version of the time-zone database in use (e.g. 2025b).' }),
    occurrences: z.array(ScheduleOccurrence),
    warnings: z
      .array(z.string())
      .meta({ description: 'What the schedule will do that may surprise, in words.' }),
  })
  .meta({ id: 'SchedulePreview' });
export type SchedulePreview = z.infer<typeof SchedulePreview>;
