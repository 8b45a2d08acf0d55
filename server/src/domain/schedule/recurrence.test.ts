import { describe, expect, it } from 'vitest';
import {
  isRecurrenceFinished,
  nextOccurrence,
  type RecurrenceInput,
  validateRecurrence,
} from './recurrence.js';

const now = new Date('2026-05-05T10:00:00.000Z');

describe('validateRecurrence', () => {
  it.each<RecurrenceInput>([
    { frequency: 1, unit: 'd', end_type: 'never' },
    { frequency: 5, unit: 'm', end_type: 'never' },
    { frequency: 1, unit: 'h', end_type: 'count', max_occurrences: 2 },
    { frequency: 2, unit: 'w', end_type: 'date', end_date: '2026-06-01T00:00:00Z' },
    { frequency: 1, unit: 'M', end_type: 'date', end_date: '2026-05-05T10:00:01' },
    { frequency: 1, unit: 'd', end_type: 'never', max_occurrences: 1 }, // ignored for `never`
  ])('accepts %j', (r) => {
    expect(validateRecurrence(r, now)).toEqual({});
  });

  it('checks frequency', () => {
    expect(validateRecurrence({ frequency: 0, unit: 'd', end_type: 'never' }, now)).toEqual({
      'recurrence.frequency': ['Must be an integer of at least 1'],
    });
    expect(Object.keys(validateRecurrence({ frequency: 1.5, unit: 'd', end_type: 'never' }, now))).toEqual([
      'recurrence.frequency',
    ]);
    expect(Object.keys(validateRecurrence({ unit: 'd', end_type: 'never' }, now))).toEqual([
      'recurrence.frequency',
    ]);
    expect(Object.keys(validateRecurrence({ frequency: '2', unit: 'd', end_type: 'never' }, now))).toEqual([
      'recurrence.frequency',
    ]);
  });

  it('enforces the 5-minute minimum interval', () => {
    expect(validateRecurrence({ frequency: 4, unit: 'm', end_type: 'never' }, now)).toEqual({
      'recurrence.frequency': ['The interval must be at least 5 minutes'],
    });
    expect(validateRecurrence({ frequency: 1, unit: 'm', end_type: 'never' }, now)).not.toEqual({});
  });

  it('checks unit and end_type', () => {
    expect(Object.keys(validateRecurrence({ frequency: 1, unit: 's', end_type: 'never' }, now))).toEqual([
      'recurrence.unit',
    ]);
    expect(Object.keys(validateRecurrence({ frequency: 1, unit: 'D', end_type: 'never' }, now))).toEqual([
      'recurrence.unit',
    ]);
    expect(Object.keys(validateRecurrence({ frequency: 1, unit: 'd', end_type: 'forever' }, now))).toEqual([
      'recurrence.end_type',
    ]);
    expect(Object.keys(validateRecurrence({}, now)).sort()).toEqual([
      'recurrence.end_type',
      'recurrence.frequency',
      'recurrence.unit',
    ]);
  });

  it('checks max_occurrences for end_type count', () => {
    const base = { frequency: 1, unit: 'd', end_type: 'count' };
    expect(validateRecurrence(base, now)).toEqual({
      'recurrence.max_occurrences': ['Required when end_type is count'],
    });
    expect(validateRecurrence({ ...base, max_occurrences: 1 }, now)).toEqual({
      'recurrence.max_occurrences': ['Must be an integer of at least 2'],
    });
    expect(Object.keys(validateRecurrence({ ...base, max_occurrences: 2.5 }, now))).toEqual([
      'recurrence.max_occurrences',
    ]);
  });

  it('checks end_date for end_type date', () => {
    const base = { frequency: 1, unit: 'd', end_type: 'date' };
    expect(validateRecurrence(base, now)).toEqual({
      'recurrence.end_date': ['Required when end_type is date'],
    });
    expect(validateRecurrence({ ...base, end_date: 'next year' }, now)).toEqual({
      'recurrence.end_date': ['Must be an ISO 8601 timestamp'],
    });
    expect(validateRecurrence({ ...base, end_date: '2026-05-05T10:00:00Z' }, now)).toEqual({
      'recurrence.end_date': ['Must be in the future'],
    });
    expect(validateRecurrence({ ...base, end_date: 12 }, now)).toEqual({
      'recurrence.end_date': ['Must be an ISO 8601 timestamp'],
    });
  });

  it('reads an end_date without offset in the timezone', () => {
    const r = { frequency: 1, unit: 'd', end_type: 'date', end_date: '2026-05-05T12:00:00' };
    expect(validateRecurrence(r, now, 'UTC')).toEqual({});
    // 12:00 in Kiritimati (+14) is 22:00Z the day before: in the past.
    expect(validateRecurrence(r, now, 'Pacific/Kiritimati')).toEqual({
      'recurrence.end_date': ['Must be in the future'],
    });
  });
});

describe('nextOccurrence', () => {
  const iso = (
    anchor: string,
    frequency: number,
    unit: 'm' | 'h' | 'd' | 'w' | 'M',
    index: number,
    tz = 'UTC',
  ) =>
    nextOccurrence({
      anchor: new Date(anchor),
      interval: { frequency, unit },
      timezone: tz,
      occurrenceIndex: index,
    }).toISOString();

  it('returns the anchor for index 0', () => {
    expect(iso('2026-11-01T06:30:00.000Z', 1, 'd', 0, 'America/New_York')).toBe('2026-11-01T06:30:00.000Z');
  });

  it('adds exact elapsed time for minutes and hours, even across DST', () => {
    expect(iso('2026-05-05T10:00:00.000Z', 15, 'm', 3)).toBe('2026-05-05T10:45:00.000Z');
    expect(iso('2026-03-08T05:00:00.000Z', 1, 'h', 3, 'America/New_York')).toBe('2026-03-08T08:00:00.000Z');
    expect(iso('2026-03-08T05:00:00.000Z', 12, 'h', 2, 'America/New_York')).toBe('2026-03-09T05:00:00.000Z');
  });

  it('keeps a daily 09:00 at 09:00 across both New York DST changes', () => {
    const anchor = '2026-03-06T14:00:00.000Z'; // Friday 09:00 EST
    expect(iso(anchor, 1, 'd', 1, 'America/New_York')).toBe('2026-03-07T14:00:00.000Z');
    expect(iso(anchor, 1, 'd', 2, 'America/New_York')).toBe('2026-03-08T13:00:00.000Z'); // 09:00 EDT
    expect(iso(anchor, 1, 'd', 3, 'America/New_York')).toBe('2026-03-09T13:00:00.000Z');
    const autumn = '2026-10-31T13:00:00.000Z'; // Saturday 09:00 EDT
    expect(iso(autumn, 1, 'd', 1, 'America/New_York')).toBe('2026-11-01T14:00:00.000Z'); // 09:00 EST
  });

  it('keeps a weekly Berlin slot across the change', () => {
    expect(iso('2026-03-23T08:00:00.000Z', 1, 'w', 1, 'Europe/Berlin')).toBe('2026-03-30T07:00:00.000Z');
    expect(iso('2026-03-23T08:00:00.000Z', 2, 'w', 2, 'Europe/Berlin')).toBe('2026-04-20T07:00:00.000Z');
  });

  it('moves a daily 02:30 forward through the gap and takes the first of an ambiguous 01:30', () => {
    expect(iso('2026-03-07T07:30:00.000Z', 1, 'd', 1, 'America/New_York')).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    expect(iso('2026-03-07T07:30:00.000Z', 1, 'd', 2, 'America/New_York')).toBe('2026-03-09T06:30:00.000Z'); // 02:30 EDT
    expect(iso('2026-10-31T05:30:00.000Z', 1, 'd', 1, 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(iso('2026-10-31T05:30:00.000Z', 1, 'd', 2, 'America/New_York')).toBe('2026-11-02T06:30:00.000Z');
  });

  it('clamps months to the month end but stays anchored (Jan 31 -> Feb 28 -> Mar 31)', () => {
    const anchor = '2026-01-31T09:00:00.000Z';
    expect(iso(anchor, 1, 'M', 1)).toBe('2026-02-28T09:00:00.000Z');
    expect(iso(anchor, 1, 'M', 2)).toBe('2026-03-31T09:00:00.000Z');
    expect(iso(anchor, 1, 'M', 3)).toBe('2026-04-30T09:00:00.000Z');
    expect(iso(anchor, 1, 'M', 13)).toBe('2027-02-28T09:00:00.000Z');
    expect(iso('2027-01-31T09:00:00.000Z', 1, 'M', 13)).toBe('2028-02-29T09:00:00.000Z');
    expect(iso(anchor, 3, 'M', 1)).toBe('2026-04-30T09:00:00.000Z');
    expect(iso(anchor, 3, 'M', 2)).toBe('2026-07-31T09:00:00.000Z');
  });

  it('computes months in the timezone', () => {
    // 2026-01-31 20:00 in New York is 2026-02-01 01:00Z: the local day decides the clamping.
    expect(iso('2026-02-01T01:00:00.000Z', 1, 'M', 1, 'America/New_York')).toBe('2026-03-01T01:00:00.000Z');
    expect(iso('2026-02-01T01:00:00.000Z', 1, 'M', 2, 'America/New_York')).toBe('2026-04-01T00:00:00.000Z');
  });
});

describe('isRecurrenceFinished', () => {
  const next = new Date('2026-06-01T00:00:00.000Z');
  it('never ends with end_type never', () => {
    expect(isRecurrenceFinished({ endType: 'never' }, 10_000, next)).toBe(false);
  });
  it('ends after max_occurrences completed executions', () => {
    expect(isRecurrenceFinished({ endType: 'count', maxOccurrences: 3 }, 2, next)).toBe(false);
    expect(isRecurrenceFinished({ endType: 'count', maxOccurrences: 3 }, 3, next)).toBe(true);
    expect(isRecurrenceFinished({ endType: 'count', maxOccurrences: 3 }, 4, next)).toBe(true);
  });
  it('ends when the next occurrence falls after the end date (inclusive end)', () => {
    const end = { endType: 'date' as const, endDate: new Date('2026-06-01T00:00:00.000Z') };
    expect(isRecurrenceFinished(end, 1, new Date('2026-05-31T23:59:59.999Z'))).toBe(false);
    expect(isRecurrenceFinished(end, 1, next)).toBe(false);
    expect(isRecurrenceFinished(end, 1, new Date('2026-06-01T00:00:00.001Z'))).toBe(true);
  });
});
