import { z } from 'zod';
import { WEEKDAYS, WINDOW_OUTSIDE_POLICIES } from '../vocabulary.js';
import { Timestamp } from './common.js';

/** A wall time of day, `HH:MM` (24 h). */
export const ClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM (00:00 to 23:59)')
  .meta({ examples: ['09:00', '17:30'] });

/** `holidays:<country>[-<region>]`: the public holidays of a country (and region) as a built-in calendar. */
export const BUILT_IN_CALENDAR_RE = /^holidays:([A-Za-z]{2})(?:-([A-Za-z0-9]{1,10}))?$/;

/** A calendar id, or a built-in `holidays:<country>[-<region>]`. */
export const CalendarReference = z
  .string()
  .max(64)
  .refine((v) => BUILT_IN_CALENDAR_RE.test(v) || z.uuid().safeParse(v).success, {
    message: 'must be a calendar id or holidays:<country>[-<region>] (e.g. holidays:US, holidays:DE-BY)',
  })
  .meta({
    description:
      'A calendar id (`POST /v1/calendars`) or a built-in `holidays:<country>[-<region>]` (ISO 3166 codes, e.g. `holidays:US`, `holidays:DE-BY`) whose days count as closed.',
    examples: ['holidays:US'],
  });

const windowFields = {
  timezone: z
    .string()
    .max(64)
    .optional()
    .meta({ description: "IANA time zone of `start` and `end`; default the action's `timezone`." }),
  days: z
    .array(z.enum(WEEKDAYS))
    .min(1)
    .max(7)
    .optional()
    .meta({ description: 'The days it opens on, `mon`..`sun`; default every day.' }),
  start: ClockTime.meta({ description: 'Wall time it opens, HH:MM.' }),
  end: ClockTime.meta({
    description:
      'Wall time it closes, HH:MM. Before `start`: across midnight (the opening belongs to the day it starts). Equal to `start`: the whole day.',
  }),
  calendar: CalendarReference.optional(),
};

export const DeliveryWindow = z
  .object({
    ...windowFields,
    outside: z.enum(WINDOW_OUTSIDE_POLICIES).optional().meta({
      description:
        '`defer` (default): a due time outside the window moves to its next opening. `skip`: an occurrence of a recurring action outside it is skipped and recorded (a one-time action, and every retry, is deferred).',
    }),
  })
  .strict()
  .meta({
    id: 'DeliveryWindow',
    description:
      'When the action may fire: its first attempt, its retries and each occurrence of a recurrence are moved into the window (docs/windows.md).',
  });
export type DeliveryWindow = z.infer<typeof DeliveryWindow>;

export const QuietHours = z
  .object({
    ...windowFields,
    escalations: z.enum(['hold', 'send']).optional().meta({
      description:
        '`hold` (default): escalations wait too. `send`: escalation messages go out inside quiet hours.',
    }),
  })
  .strict()
  .meta({
    id: 'QuietHours',
    description:
      "When the approval's messages (first send, reminders, re-sends) are held until quiet hours end; the gate's timeout keeps running and the response page works at any hour.",
  });
export type QuietHours = z.infer<typeof QuietHours>;

export const WindowDeferral = z
  .object({
    from: Timestamp.meta({ description: 'When it was due.' }),
    to: Timestamp.meta({ description: 'The opening of the window it was moved to.' }),
  })
  .meta({ id: 'WindowDeferral' });
