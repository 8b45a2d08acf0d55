import { describe, expect, it } from 'vitest';
import {
  type ClosedDays,
  closesAt,
  NO_CLOSED_DAYS,
  nextOpening,
  openingAt,
  placeRun,
  weekdayOf,
} from './window.js';

const at = (iso: string) => new Date(iso);
const closed =
  (...dates: string[]): ClosedDays =>
  (d) =>
    dates.includes(d);

describe('nextOpening', () => {
  const office = {
    timezone: 'UTC',
    days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const,
    start: '09:00',
    end: '17:00',
  };

  it('answers the instant itself inside the window', () => {
    expect(nextOpening(office, at('2026-11-30T10:15:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-11-30T10:15:00Z'),
    );
  });

  it('moves an instant before the opening to the opening of that day', () => {
    expect(nextOpening(office, at('2026-11-30T06:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-11-30T09:00:00Z'),
    );
  });

  it('moves an instant at the close (end is exclusive) to the next working day', () => {
    expect(nextOpening(office, at('2026-11-30T17:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-01T09:00:00Z'),
    );
  });

  it('skips the days not listed: Friday evening goes to Monday', () => {
    expect(nextOpening(office, at('2026-12-04T18:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-07T09:00:00Z'),
    );
  });

  it('skips closed days of the calendar', () => {
    expect(nextOpening(office, at('2026-12-24T18:00:00Z'), closed('2026-12-25'))).toEqual(
      at('2026-12-28T09:00:00Z'),
    );
  });

  it('reads start and end in the window time zone', () => {
    const ny = { ...office, timezone: 'America/New_York' };
    // 13:00 UTC is 08:00 in New York (EST): opens at 09:00 EST = 14:00 UTC.
    expect(nextOpening(ny, at('2026-11-30T13:00:00Z'), NO_CLOSED_DAYS)).toEqual(at('2026-11-30T14:00:00Z'));
  });

  it('runs across midnight when end is before start; the opening belongs to the day it starts', () => {
    const night = { timezone: 'UTC', days: ['fri'] as const, start: '22:00', end: '06:00' };
    // Saturday 03:00 is inside Friday's opening.
    expect(nextOpening(night, at('2026-12-05T03:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-05T03:00:00Z'),
    );
    // Saturday 07:00 waits for next Friday 22:00.
    expect(nextOpening(night, at('2026-12-05T07:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-11T22:00:00Z'),
    );
  });

  it('treats start equal to end as the whole day', () => {
    const weekend = { timezone: 'UTC', days: ['sat', 'sun'] as const, start: '00:00', end: '00:00' };
    expect(nextOpening(weekend, at('2026-12-06T23:59:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-06T23:59:00Z'),
    );
    expect(nextOpening(weekend, at('2026-12-07T00:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2026-12-12T00:00:00Z'),
    );
  });

  it('moves an edge in a spring-forward gap on by the gap, as the preview reads wall times', () => {
    // 2027-03-14 02:00 -> 03:00 in New York: a 02:30 opening is 03:30 EDT (07:30 UTC).
    const early = { timezone: 'America/New_York', start: '02:30', end: '05:00' };
    expect(nextOpening(early, at('2027-03-14T05:00:00Z'), NO_CLOSED_DAYS)).toEqual(
      at('2027-03-14T07:30:00Z'),
    );
  });

  it('takes the first instant of an edge in a fall-back fold', () => {
    // 2027-11-07 01:30 happens twice in New York; the opening is the first (EDT, 05:30 UTC).
    const w = { timezone: 'America/New_York', start: '01:30', end: '03:00' };
    expect(nextOpening(w, at('2027-11-07T04:00:00Z'), NO_CLOSED_DAYS)).toEqual(at('2027-11-07T05:30:00Z'));
  });

  it('answers null when no opening starts within the search', () => {
    expect(nextOpening(office, at('2026-11-30T18:00:00Z'), () => true)).toBeNull();
  });
});

describe('openingAt and closesAt', () => {
  const quiet = { timezone: 'Europe/Paris', start: '22:00', end: '07:00' };

  it('finds the opening an instant falls in, and when it closes', () => {
    // 23:30 in Paris (CET) on 2026-11-30.
    const inside = at('2026-11-30T22:30:00Z');
    expect(openingAt(quiet, inside, NO_CLOSED_DAYS)?.date).toBe('2026-11-30');
    expect(closesAt(quiet, inside, NO_CLOSED_DAYS)).toEqual(at('2026-12-01T06:00:00Z'));
  });

  it('answers the instant itself outside any opening', () => {
    const outside = at('2026-11-30T12:00:00Z');
    expect(openingAt(quiet, outside, NO_CLOSED_DAYS)).toBeNull();
    expect(closesAt(quiet, outside, NO_CLOSED_DAYS)).toEqual(outside);
  });
});

describe('weekdayOf', () => {
  it('names ISO weekdays', () => {
    expect(weekdayOf({ year: 2026, month: 11, day: 30 })).toBe('mon');
    expect(weekdayOf({ year: 2027, month: 7, day: 5 })).toBe('mon');
    expect(weekdayOf({ year: 2026, month: 12, day: 6 })).toBe('sun');
  });
});

describe('placeRun', () => {
  const day = 86_400_000;
  const daily = (first: string) => {
    const start = at(first).getTime();
    return {
      first: { index: 0, at: at(first) },
      after: (r: { index: number; at: Date }) => ({
        index: r.index + 1,
        at: new Date(start + (r.index + 1) * day),
      }),
    };
  };
  const hours = { timezone: 'UTC', start: '09:00', end: '17:00' };

  it('skips the runs outside the window with outside: skip and names them', () => {
    const s = daily('2026-12-24T10:00:00Z');
    const placed = placeRun(
      s.first,
      s.after,
      { ...hours, outside: 'skip' },
      closed('2026-12-24', '2026-12-25'),
    );
    expect(placed?.run.index).toBe(2);
    expect(placed?.placement).toEqual({ at: at('2026-12-26T10:00:00Z'), deferred: null });
    expect(placed?.skipped).toEqual([at('2026-12-24T10:00:00Z'), at('2026-12-25T10:00:00Z')]);
  });

  it('defers a run outside the window to the next opening with outside: defer', () => {
    const s = daily('2026-12-24T18:00:00Z');
    const placed = placeRun(s.first, s.after, { ...hours, outside: 'defer' }, NO_CLOSED_DAYS);
    expect(placed?.run.index).toBe(0);
    expect(placed?.placement).toEqual({
      at: at('2026-12-25T09:00:00Z'),
      deferred: { from: at('2026-12-24T18:00:00Z'), to: at('2026-12-25T09:00:00Z') },
    });
  });

  it('answers null when the series ends before a run meets the window', () => {
    const placed = placeRun(
      { at: at('2026-12-24T20:00:00Z') },
      () => null,
      { ...hours, outside: 'skip' },
      NO_CLOSED_DAYS,
    );
    expect(placed).toBeNull();
  });
});
