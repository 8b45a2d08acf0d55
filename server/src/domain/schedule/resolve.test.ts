import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  isValidTimezone,
  parseScheduledFor,
  parseTimestamp,
  resolveSchedule,
  type ScheduleInput,
  wallTimeToInstant,
} from './resolve.js';

const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const limits = { horizonDays: 365 };

function at(
  input: ScheduleInput,
  now: string,
  lim: { horizonDays: number; pastToleranceMs?: number } = limits,
) {
  const result = resolveSchedule(input, new Date(now), lim);
  if (!result.ok) throw new Error(`expected ok, got ${result.field}: ${result.message}`);
  return result.at.toISOString();
}

function error(
  input: ScheduleInput,
  now: string,
  lim: { horizonDays: number; pastToleranceMs?: number } = limits,
) {
  const result = resolveSchedule(input, new Date(now), lim);
  if (result.ok) throw new Error(`expected an error, got ${result.at.toISOString()}`);
  return { field: result.field, message: result.message };
}

describe('wallTimeToInstant', () => {
  const wall = (iso: string) => {
    const [date, time] = iso.split('T') as [string, string];
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    return { year, month, day, hour, minute, second: 0, millisecond: 0 };
  };

  it('reads ordinary wall times with the zone offset', () => {
    expect(wallTimeToInstant(wall('2026-01-15T09:00'), NY).toISOString()).toBe('2026-01-15T14:00:00.000Z');
    expect(wallTimeToInstant(wall('2026-07-15T09:00'), NY).toISOString()).toBe('2026-07-15T13:00:00.000Z');
    expect(wallTimeToInstant(wall('2026-07-15T09:00'), 'UTC').toISOString()).toBe('2026-07-15T09:00:00.000Z');
  });

  it('moves a wall time in the spring-forward gap forward by the gap', () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist.
    expect(wallTimeToInstant(wall('2026-03-08T02:30'), NY).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(wallTimeToInstant(wall('2026-03-08T02:00'), NY).toISOString()).toBe('2026-03-08T07:00:00.000Z');
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST.
    expect(wallTimeToInstant(wall('2026-03-29T02:30'), BERLIN).toISOString()).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    // Lord Howe has a 30-minute gap: 02:15 becomes 02:45 (+11:00).
    expect(wallTimeToInstant(wall('2026-10-04T02:15'), 'Australia/Lord_Howe').toISOString()).toBe(
      '2026-10-03T15:45:00.000Z',
    );
  });

  it('takes the earlier instant of an ambiguous wall time', () => {
    // New York, 2026-11-01: 01:30 happens at -04:00 and again at -05:00.
    expect(wallTimeToInstant(wall('2026-11-01T01:30'), NY).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(wallTimeToInstant(wall('2026-11-01T02:00'), NY).toISOString()).toBe('2026-11-01T07:00:00.000Z');
    // Berlin, 2026-10-25: 02:30 happens at +02:00 and again at +01:00.
    expect(wallTimeToInstant(wall('2026-10-25T02:30'), BERLIN).toISOString()).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    // Lord Howe, 2026-04-05: 01:45 at +11:00 and again at +10:30.
    expect(wallTimeToInstant(wall('2026-04-05T01:45'), 'Australia/Lord_Howe').toISOString()).toBe(
      '2026-04-04T14:45:00.000Z',
    );
  });
});

describe('isValidTimezone', () => {
  it.each(['UTC', NY, BERLIN, 'Asia/Kolkata', 'Australia/Lord_Howe'])('accepts %s', (tz) => {
    expect(isValidTimezone(tz)).toBe(true);
  });
  it.each(['', 'Mars/Olympus_Mons', 'New York', 'GMT+25'])('rejects %j', (tz) => {
    expect(isValidTimezone(tz)).toBe(false);
  });
});

describe('resolveSchedule: form selection', () => {
  const now = '2026-05-05T10:00:00.000Z';
  it('requires one form', () => {
    expect(error({ timezone: 'UTC' }, now).field).toBe('schedule');
    expect(error({ timezone: 'UTC', preset: null, wait: null }, now).field).toBe('schedule');
  });
  it('refuses several forms', () => {
    expect(error({ timezone: 'UTC', preset: '1h', wait: '10m' }, now)).toEqual({
      field: 'schedule',
      message: 'Give only one of schedule.preset, schedule.wait and scheduled_for',
    });
    expect(error({ timezone: 'UTC', wait: '10m', scheduledFor: '2026-05-06T00:00:00Z' }, now).field).toBe(
      'schedule',
    );
  });
  it('refuses an unknown timezone', () => {
    expect(error({ timezone: 'Mars/Base', wait: '10m' }, now).field).toBe('timezone');
  });
});

describe('resolveSchedule: offset presets and waits are elapsed time', () => {
  const now = '2026-03-07T14:00:00.000Z'; // Saturday 09:00 EST, the day before the New York gap
  it.each([
    ['1h', '2026-03-07T15:00:00.000Z'],
    ['2h', '2026-03-07T16:00:00.000Z'],
    ['4h', '2026-03-07T18:00:00.000Z'],
    ['1d', '2026-03-08T14:00:00.000Z'], // 10:00 EDT: 24 h, not "same time tomorrow"
    ['3d', '2026-03-10T14:00:00.000Z'],
    ['1w', '2026-03-14T14:00:00.000Z'],
  ])('preset %s', (preset, expected) => {
    expect(at({ timezone: NY, preset }, now)).toBe(expected);
  });

  it.each([
    ['30s', '2026-03-07T14:00:30.000Z'],
    ['10m', '2026-03-07T14:10:00.000Z'],
    ['4h', '2026-03-07T18:00:00.000Z'],
    ['1d', '2026-03-08T14:00:00.000Z'],
    ['1w', '2026-03-14T14:00:00.000Z'],
  ])('wait %s', (wait, expected) => {
    expect(at({ timezone: NY, wait }, now)).toBe(expected);
  });

  it('refuses a malformed wait and an unknown preset', () => {
    expect(error({ timezone: 'UTC', wait: '10 minutes' }, now).field).toBe('schedule.wait');
    expect(error({ timezone: 'UTC', wait: '0s' }, now).field).toBe('schedule.wait');
    expect(error({ timezone: 'UTC', preset: 'someday' }, now).field).toBe('schedule.preset');
    expect(error({ timezone: 'UTC', preset: 'monday' }, now).field).toBe('schedule.preset');
    expect(error({ timezone: 'UTC', preset: 'next_funday' }, now).field).toBe('schedule.preset');
    expect(error({ timezone: 'UTC', preset: '5h' }, now).field).toBe('schedule.preset');
  });
});

describe('resolveSchedule: calendar presets keep the wall-clock time of day', () => {
  it('tomorrow across the spring-forward change keeps 09:00 (23 h later)', () => {
    expect(at({ timezone: NY, preset: 'tomorrow' }, '2026-03-07T14:00:00.000Z')).toBe(
      '2026-03-08T13:00:00.000Z',
    );
  });

  it('tomorrow into the gap moves forward by the gap (02:30 -> 03:30 EDT)', () => {
    expect(at({ timezone: NY, preset: 'tomorrow' }, '2026-03-07T07:30:00.000Z')).toBe(
      '2026-03-08T07:30:00.000Z',
    );
    expect(at({ timezone: BERLIN, preset: 'tomorrow' }, '2026-03-28T01:30:00.000Z')).toBe(
      '2026-03-29T01:30:00.000Z',
    );
  });

  it('tomorrow into an ambiguous time takes the earlier instant', () => {
    // Saturday 01:30 EDT -> Sunday 01:30 EDT (the first of the two 01:30s)
    expect(at({ timezone: NY, preset: 'tomorrow' }, '2026-10-31T05:30:00.000Z')).toBe(
      '2026-11-01T05:30:00.000Z',
    );
    expect(at({ timezone: BERLIN, preset: 'tomorrow' }, '2026-10-24T00:30:00.000Z')).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });

  it('tomorrow across the fall-back change keeps 09:00 (25 h later)', () => {
    expect(at({ timezone: NY, preset: 'tomorrow' }, '2026-10-31T13:00:00.000Z')).toBe(
      '2026-11-01T14:00:00.000Z',
    );
  });

  it('tomorrow from the second (later) 01:30 still lands on the next day at 01:30', () => {
    expect(at({ timezone: NY, preset: 'tomorrow' }, '2026-11-01T06:30:00.000Z')).toBe(
      '2026-11-02T06:30:00.000Z',
    );
  });

  it('keeps seconds and milliseconds of the time of day', () => {
    expect(at({ timezone: 'UTC', preset: 'tomorrow' }, '2026-05-05T10:11:12.345Z')).toBe(
      '2026-05-06T10:11:12.345Z',
    );
  });

  it('crosses month and year ends', () => {
    expect(at({ timezone: 'UTC', preset: 'tomorrow' }, '2026-12-31T23:00:00.000Z')).toBe(
      '2027-01-01T23:00:00.000Z',
    );
    expect(at({ timezone: 'UTC', preset: 'tomorrow' }, '2028-02-28T08:00:00.000Z')).toBe(
      '2028-02-29T08:00:00.000Z',
    );
  });

  const monday = '2026-03-09T15:00:00.000Z'; // Monday in UTC
  it.each([
    ['next_monday', '2026-03-16T15:00:00.000Z'], // strictly after today: a full week
    ['next_tuesday', '2026-03-10T15:00:00.000Z'],
    ['next_wednesday', '2026-03-11T15:00:00.000Z'],
    ['next_thursday', '2026-03-12T15:00:00.000Z'],
    ['next_friday', '2026-03-13T15:00:00.000Z'],
    ['next_saturday', '2026-03-14T15:00:00.000Z'],
    ['next_sunday', '2026-03-15T15:00:00.000Z'],
    ['next_week', '2026-03-16T15:00:00.000Z'],
  ])('on a Monday, %s', (preset, expected) => {
    expect(at({ timezone: 'UTC', preset }, monday)).toBe(expected);
  });

  it('on a Sunday, next_monday and next_week are the following day', () => {
    const sunday = '2026-03-15T08:00:00.000Z';
    expect(at({ timezone: 'UTC', preset: 'next_monday' }, sunday)).toBe('2026-03-16T08:00:00.000Z');
    expect(at({ timezone: 'UTC', preset: 'next_week' }, sunday)).toBe('2026-03-16T08:00:00.000Z');
    expect(at({ timezone: 'UTC', preset: 'next_sunday' }, sunday)).toBe('2026-03-22T08:00:00.000Z');
  });

  it('decides "today" in the timezone, not in UTC', () => {
    // 03:00Z on Monday 2026-03-09 is Sunday 23:00 in New York.
    const now = '2026-03-09T03:00:00.000Z';
    expect(at({ timezone: NY, preset: 'next_monday' }, now)).toBe('2026-03-10T03:00:00.000Z');
    expect(at({ timezone: 'UTC', preset: 'next_monday' }, now)).toBe('2026-03-16T03:00:00.000Z');
    expect(at({ timezone: NY, preset: 'tomorrow' }, now)).toBe('2026-03-10T03:00:00.000Z');
  });

  it('next_week across the spring-forward change keeps the time of day', () => {
    // Friday 2026-03-06 09:00 EST -> Monday 2026-03-09 09:00 EDT
    expect(at({ timezone: NY, preset: 'next_week' }, '2026-03-06T14:00:00.000Z')).toBe(
      '2026-03-09T13:00:00.000Z',
    );
  });
});

describe('resolveSchedule: scheduled_for', () => {
  const now = '2026-05-05T10:00:00.000Z';
  it('reads timestamps with an offset as absolute', () => {
    expect(at({ timezone: NY, scheduledFor: '2026-05-06T12:00:00Z' }, now)).toBe('2026-05-06T12:00:00.000Z');
    expect(at({ timezone: NY, scheduledFor: '2026-05-06T12:00:00+02:00' }, now)).toBe(
      '2026-05-06T10:00:00.000Z',
    );
    expect(at({ timezone: 'UTC', scheduledFor: '2026-05-06T12:00:00.250-0530' }, now)).toBe(
      '2026-05-06T17:30:00.250Z',
    );
  });

  it('reads timestamps without an offset as UTC, whatever the timezone says', () => {
    expect(at({ timezone: NY, scheduledFor: '2027-01-15T09:00:00' }, now)).toBe('2027-01-15T09:00:00.000Z');
    expect(at({ timezone: NY, scheduledFor: '2026-05-06T12:00:00' }, now)).toBe('2026-05-06T12:00:00.000Z');
    expect(at({ timezone: BERLIN, scheduledFor: '2026-05-06T12:00' }, now)).toBe('2026-05-06T12:00:00.000Z');
    expect(at({ timezone: 'UTC', scheduledFor: '2026-05-06T12:00:00' }, now)).toBe(
      '2026-05-06T12:00:00.000Z',
    );
    expect(at({ timezone: NY, scheduledFor: '2026-05-07' }, now)).toBe('2026-05-07T00:00:00.000Z');
    expect(parseScheduledFor('2027-01-15T09:00:00')?.toISOString()).toBe('2027-01-15T09:00:00.000Z');
    expect(parseScheduledFor('9 am')).toBeNull();
  });

  it('a DST gap or fold of the timezone does not touch an offset-less time (it is UTC)', () => {
    const early = '2026-03-01T00:00:00.000Z';
    expect(at({ timezone: NY, scheduledFor: '2026-03-08T02:30:00' }, early)).toBe('2026-03-08T02:30:00.000Z');
    expect(at({ timezone: NY, scheduledFor: '2026-11-01T01:30:00' }, early)).toBe('2026-11-01T01:30:00.000Z');
    // An explicit offset picks the later 01:30 of the fold.
    expect(at({ timezone: NY, scheduledFor: '2026-11-01T01:30:00-05:00' }, early)).toBe(
      '2026-11-01T06:30:00.000Z',
    );
  });

  it('refuses what is not ISO 8601', () => {
    for (const scheduledFor of ['tomorrow', '2026-13-01T00:00:00Z', '05/06/2026', '2026-05-06 12:00', '']) {
      expect(error({ timezone: 'UTC', scheduledFor }, now)).toEqual({
        field: 'scheduled_for',
        message: 'Must be an ISO 8601 timestamp',
      });
    }
  });

  it('resolves a time within the past tolerance to now', () => {
    expect(at({ timezone: 'UTC', scheduledFor: '2026-05-05T09:59:30Z' }, now)).toBe(now);
    expect(at({ timezone: 'UTC', scheduledFor: '2026-05-05T09:59:00Z' }, now)).toBe(now);
    expect(at({ timezone: 'UTC', scheduledFor: now }, now)).toBe(now);
  });

  it('refuses a time further in the past', () => {
    expect(error({ timezone: 'UTC', scheduledFor: '2026-05-05T09:58:59.999Z' }, now)).toEqual({
      field: 'scheduled_for',
      message: 'Must not be in the past',
    });
    expect(
      error({ timezone: 'UTC', scheduledFor: '2026-05-05T09:59:50Z' }, now, {
        horizonDays: 30,
        pastToleranceMs: 5_000,
      }).field,
    ).toBe('scheduled_for');
  });
});

describe('resolveSchedule: plan horizon', () => {
  const now = '2026-05-05T10:00:00.000Z';
  const free = { horizonDays: 30 };
  it('accepts exactly the horizon', () => {
    expect(at({ timezone: 'UTC', wait: '30d' }, now, free)).toBe('2026-06-04T10:00:00.000Z');
    expect(at({ timezone: 'UTC', scheduledFor: '2026-06-04T10:00:00Z' }, now, free)).toBe(
      '2026-06-04T10:00:00.000Z',
    );
  });
  it('refuses beyond the horizon on the field that gave the time', () => {
    expect(error({ timezone: 'UTC', wait: '31d' }, now, free)).toEqual({
      field: 'schedule.wait',
      message: "Must be within 30 days (the plan's schedule horizon)",
    });
    expect(error({ timezone: 'UTC', scheduledFor: '2026-06-04T10:00:00.001Z' }, now, free).field).toBe(
      'scheduled_for',
    );
    expect(error({ timezone: 'UTC', preset: '1w' }, now, { horizonDays: 6 }).field).toBe('schedule.preset');
    expect(error({ timezone: 'UTC', preset: 'next_monday' }, now, { horizonDays: 1 }).field).toBe(
      'schedule.preset',
    );
  });
});

describe('parseTimestamp', () => {
  it('returns null for non-strings and invalid dates', () => {
    expect(parseTimestamp(undefined as unknown as string, 'UTC')).toBeNull();
    expect(parseTimestamp('2026-02-30T00:00:00Z', 'UTC')).toBeNull();
    expect(parseTimestamp('2026-02-30T00:00:00', 'UTC')).toBeNull();
  });

  it('reads the UTC form of toISOString() as luxon reads it, and leaves luxon what does not exist', () => {
    const luxon = (text: string) => {
      const t = DateTime.fromISO(text, { setZone: true });
      return t.isValid ? t.toJSDate().toISOString() : null;
    };
    for (const text of [
      '2026-11-28T20:31:00.000Z',
      '2026-11-28T20:31:00Z',
      '2026-11-28T20:31:07.5Z',
      '2026-11-28T20:31:07.05Z',
      '2028-02-29T23:59:59.999Z',
      '2027-02-29T00:00:00Z',
      '2026-11-31T00:00:00Z',
      '2026-11-28T24:00:00Z',
      '2026-12-31T23:59:60Z',
      '2026-13-01T00:00:00Z',
      '0099-01-01T00:00:00Z',
      '1000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(parseTimestamp(text, 'UTC')?.toISOString() ?? null, text).toBe(luxon(text));
      expect(parseTimestamp(text, NY)?.toISOString() ?? null, text).toBe(luxon(text));
    }
  });
});
