import { z } from 'zod';
import { paginationQuery, Timestamp, Uuid } from './common.js';

/** A calendar date, `YYYY-MM-DD`. */
export const CalendarDate = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date as YYYY-MM-DD')
  .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), {
    message: 'is not a calendar date',
  })
  .meta({ examples: ['2026-12-24'] });

/** `<country>[-<region>]` of a holidays package's data (ISO 3166-1 alpha-2, then the region's code). */
export const HolidaysRegion = z
  .string()
  .regex(/^[A-Za-z]{2}(-[A-Za-z0-9]{1,10})?$/, 'must be a country code, optionally with a region (US, DE-BY)')
  .meta({ examples: ['US', 'DE-BY'] });

/** The most closed days one calendar lists of its own. */
export const MAX_CALENDAR_DATES = 1000;

const calendarFields = {
  name: z.string().trim().min(1).max(255),
  timezone: z.string().max(64).meta({ description: 'IANA time zone the dates are days of.' }),
  dates: z
    .array(CalendarDate)
    .max(MAX_CALENDAR_DATES)
    .meta({ description: `The owner's closed days (at most ${MAX_CALENDAR_DATES}).` }),
  holidays: HolidaysRegion.nullish().meta({
    description: "A country's (and region's) public holidays, merged with `dates`; null: none.",
  }),
};

export const CalendarCreate = z
  .object({
    ...calendarFields,
    timezone: calendarFields.timezone.default('UTC'),
    dates: calendarFields.dates.default([]),
  })
  .meta({
    id: 'CalendarCreate',
    examples: [
      { name: 'Office closed', timezone: 'America/New_York', dates: ['2026-12-24'], holidays: 'US' },
    ],
  });
export type CalendarCreate = z.input<typeof CalendarCreate>;

export const CalendarUpdate = z
  .object({
    name: calendarFields.name.optional(),
    timezone: calendarFields.timezone.optional(),
    dates: calendarFields.dates.optional(),
    holidays: calendarFields.holidays,
  })
  .meta({ id: 'CalendarUpdate', description: 'Only supplied fields change; `holidays: null` removes them.' });
export type CalendarUpdate = z.input<typeof CalendarUpdate>;

export const Calendar = z
  .object({
    id: Uuid,
    name: z.string(),
    timezone: z.string(),
    dates: z.array(z.string()).meta({ description: "The owner's closed days, in order." }),
    holidays: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({
    id: 'Calendar',
    description:
      'Closed days: name it as `calendar` in a delivery window or quiet hours, and its days have no opening.',
  });
export type Calendar = z.infer<typeof Calendar>;

export const CalendarListQuery = z.object({ ...paginationQuery(25) });

/** The longest range `GET /v1/calendars/{id}/days` lists at once. */
export const MAX_CALENDAR_DAYS_RANGE = 366 * 2;

export const CalendarDaysQuery = z.object({
  from: CalendarDate.meta({ description: 'First day of the range (inclusive).' }),
  to: CalendarDate.meta({
    description: `Last day of the range (inclusive); at most ${MAX_CALENDAR_DAYS_RANGE} days after from.`,
  }),
});

export const ClosedDay = z
  .object({
    date: z.string(),
    source: z
      .enum(['dates', 'holidays'])
      .meta({ description: "`dates`: the owner's; `holidays`: a public holiday." }),
    name: z.string().nullable().meta({ description: "The holiday's name; null for the owner's days." }),
  })
  .meta({ id: 'ClosedDay' });

export const CalendarDays = z
  .object({
    data: z.array(ClosedDay),
    meta: z.object({ from: z.string(), to: z.string(), timezone: z.string() }),
  })
  .meta({ id: 'CalendarDays' });
export type CalendarDays = z.infer<typeof CalendarDays>;
