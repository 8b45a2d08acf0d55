import { SchedulePreviewBody } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { previewSchedule } from './preview.js';

const now = new Date('2027-03-10T12:00:00Z');
const preview = (body: Record<string, unknown>, plan: 'free' | 'business' = 'business') =>
  previewSchedule(SchedulePreviewBody.parse(body), { plan }, now);
const daily0230 = (dst_policy?: Record<string, string>) => ({
  scheduled_for: '2027-03-12T02:30:00-05:00',
  timezone: 'America/New_York',
  recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
  count: 5,
  ...(dst_policy ? { dst_policy } : {}),
});

describe('schedule preview', () => {
  it('a daily 02:30 New York series over 2027-03-14 is shifted by the gap by default (as sched always did)', () => {
    const p = preview(daily0230());
    expect(p.timezone).toBe('America/New_York');
    expect(p.tzdata).toBe(process.versions.tz);
    expect(p.occurrences).toEqual([
      {
        at: '2027-03-12T07:30:00.000Z',
        local: '2027-03-12T02:30:00',
        offset: '-05:00',
        dst: null,
        window: null,
        due: null,
      },
      {
        at: '2027-03-13T07:30:00.000Z',
        local: '2027-03-13T02:30:00',
        offset: '-05:00',
        dst: null,
        window: null,
        due: null,
      },
      {
        at: '2027-03-14T07:30:00.000Z',
        local: '2027-03-14T03:30:00',
        offset: '-04:00',
        dst: 'gap_shifted',
        window: null,
        due: null,
      },
      // Back at 02:30 the next day: the series keeps the wall time asked for.
      {
        at: '2027-03-15T06:30:00.000Z',
        local: '2027-03-15T02:30:00',
        offset: '-04:00',
        dst: null,
        window: null,
        due: null,
      },
      {
        at: '2027-03-16T06:30:00.000Z',
        local: '2027-03-16T02:30:00',
        offset: '-04:00',
        dst: null,
        window: null,
        due: null,
      },
    ]);
    expect(p.warnings).toEqual(['2027-03-14T02:30 does not exist in America/New_York; shifted to 03:30']);
  });

  it('shift_forward runs at the first instant after the gap; skip leaves the day out', () => {
    const forward = preview(daily0230({ gap: 'shift_forward' }));
    expect(forward.occurrences[2]).toEqual({
      at: '2027-03-14T07:00:00.000Z',
      local: '2027-03-14T03:00:00',
      offset: '-04:00',
      dst: 'gap_shifted',
      window: null,
      due: null,
    });
    expect(forward.warnings).toEqual([
      '2027-03-14T02:30 does not exist in America/New_York; shifted to 03:00',
    ]);

    const skip = preview(daily0230({ gap: 'skip' }));
    expect(skip.occurrences.map((o) => [o.local, o.dst])).toEqual([
      ['2027-03-12T02:30:00', null],
      ['2027-03-13T02:30:00', null],
      ['2027-03-14T02:30:00', 'gap_skipped'],
      ['2027-03-15T02:30:00', null],
      ['2027-03-16T02:30:00', null],
      ['2027-03-17T02:30:00', null],
    ]);
    expect(skip.warnings).toEqual(['2027-03-14T02:30 does not exist in America/New_York; skipped']);
  });

  it('an offset-less scheduled_for is UTC; the series then steps in its timezone', () => {
    const p = preview({ ...daily0230(), scheduled_for: '2027-03-12T09:00:00', count: 3 });
    expect(p.occurrences.map((o) => [o.at, o.local])).toEqual([
      ['2027-03-12T09:00:00.000Z', '2027-03-12T04:00:00'],
      ['2027-03-13T09:00:00.000Z', '2027-03-13T04:00:00'],
      // 04:00 New York wall time again after the change: the timezone governs the steps.
      ['2027-03-14T08:00:00.000Z', '2027-03-14T04:00:00'],
    ]);
  });

  it('folds: first (default), second, or both', () => {
    const fold = (policy?: Record<string, string>) =>
      preview(
        {
          scheduled_for: '2027-11-06T01:30:00-04:00',
          timezone: 'America/New_York',
          recurrence: { frequency: 1, unit: 'd', end_type: 'count', max_occurrences: 3 },
          ...(policy ? { dst_policy: policy } : {}),
        },
        'business',
      );
    expect(fold().occurrences.map((o) => [o.at, o.dst])).toEqual([
      ['2027-11-06T05:30:00.000Z', null],
      ['2027-11-07T05:30:00.000Z', 'fold_first'],
      ['2027-11-08T06:30:00.000Z', null],
    ]);
    expect(fold().warnings[0]).toBe(
      '2027-11-07T01:30 happens twice in America/New_York; runs at the first (-04:00)',
    );
    expect(fold({ gap: 'same_offset', fold: 'second' }).occurrences[1]).toMatchObject({
      at: '2027-11-07T06:30:00.000Z',
      offset: '-05:00',
      dst: 'fold_second',
      window: null,
      due: null,
    });
    const both = fold({ gap: 'same_offset', fold: 'both' });
    // max_occurrences counts runs: both instants of the fold are two of the three.
    expect(both.occurrences.map((o) => [o.local, o.offset, o.dst])).toEqual([
      ['2027-11-06T01:30:00', '-04:00', null],
      ['2027-11-07T01:30:00', '-04:00', 'fold_first'],
      ['2027-11-07T01:30:00', '-05:00', 'fold_second'],
    ]);
    expect(both.warnings).toEqual([
      '2027-11-07T01:30 happens twice in America/New_York; runs at both (-04:00 and -05:00)',
    ]);
  });

  it('a one-time time, an elapsed-time series across a change, and the horizon are warned about', () => {
    const once = preview({ scheduled_for: '2027-04-15T09:00:00', timezone: 'America/New_York' });
    expect(once.occurrences).toEqual([
      {
        at: '2027-04-15T09:00:00.000Z',
        local: '2027-04-15T05:00:00',
        offset: '-04:00',
        dst: null,
        window: null,
        due: null,
      },
    ]);
    const hourly = preview({
      scheduled_for: '2027-03-13T02:30:00-05:00',
      timezone: 'America/New_York',
      recurrence: { frequency: 24, unit: 'h', end_type: 'never' },
      count: 3,
    });
    expect(hourly.occurrences.map((o) => o.local)).toEqual([
      '2027-03-13T02:30:00',
      '2027-03-14T03:30:00',
      '2027-03-15T03:30:00',
    ]);
    expect(hourly.warnings[0]).toContain('counts elapsed time');
    const far = preview({ scheduled_for: '2027-06-01T09:00:00Z' }, 'free');
    expect(far.warnings).toEqual([
      '2027-06-01T09:00 is beyond the 30-day schedule horizon of the free plan: creating this action would be refused',
    ]);
  });

  it('counts 10 runs by default; bad fields are 422 with dotted paths', () => {
    expect(
      preview({ schedule: { wait: '1h' }, recurrence: { frequency: 1, unit: 'h', end_type: 'never' } })
        .occurrences,
    ).toHaveLength(10);
    const bad = () =>
      preview({
        scheduled_for: 'soon',
        timezone: 'Mars/Olympus',
        recurrence: { frequency: 1, unit: 'm', end_type: 'never' },
      });
    expect(bad).toThrow(ValidationError);
    try {
      bad();
    } catch (err) {
      expect(Object.keys((err as ValidationError).errors).sort()).toEqual([
        'recurrence.frequency',
        'timezone',
      ]);
    }
    expect(SchedulePreviewBody.safeParse({ count: 101 }).success).toBe(false);
    expect(SchedulePreviewBody.safeParse({ count: 0 }).success).toBe(false);
  });
});

describe('schedule preview with a delivery window', () => {
  const july = new Date('2027-07-01T12:00:00Z');
  const previewAt = (body: Record<string, unknown>) =>
    previewSchedule(SchedulePreviewBody.parse(body), { plan: 'business' }, july);

  it('skips 2027-07-05 (observed Independence Day) of a daily series with holidays:US and outside skip', () => {
    const p = previewAt({
      scheduled_for: '2027-07-02T10:00:00-04:00',
      timezone: 'America/New_York',
      recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
      delivery_window: { start: '09:00', end: '17:00', calendar: 'holidays:US', outside: 'skip' },
      count: 4,
    });
    expect(p.occurrences.map((o) => [o.local, o.window])).toEqual([
      ['2027-07-02T10:00:00', null],
      ['2027-07-03T10:00:00', null],
      ['2027-07-04T10:00:00', 'skipped'],
      ['2027-07-05T10:00:00', 'skipped'],
      ['2027-07-06T10:00:00', null],
      ['2027-07-07T10:00:00', null],
    ]);
    expect(p.warnings).toContain(
      '2027-07-05T10:00 America/New_York is outside the delivery window (2027-07-05 is a closed day of holidays:US); skipped',
    );
  });

  it('defers a run outside the hours to the next opening, and says when it was due', () => {
    const p = previewAt({
      scheduled_for: '2027-07-02T18:30:00Z',
      delivery_window: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    });
    // Friday 18:30 UTC: the next opening is Monday 09:00.
    expect(p.occurrences).toEqual([
      {
        at: '2027-07-05T09:00:00.000Z',
        local: '2027-07-05T09:00:00',
        offset: '+00:00',
        dst: null,
        window: 'deferred',
        due: '2027-07-02T18:30:00.000Z',
      },
    ]);
    expect(p.warnings).toEqual([
      '2027-07-02T18:30 UTC is outside the delivery window; deferred to 2027-07-05T09:00 UTC',
    ]);
  });

  it('refuses an unknown holidays region and a bad window time zone with dotted paths', () => {
    expect(() =>
      previewAt({
        scheduled_for: '2027-07-02T18:30:00Z',
        delivery_window: { start: '09:00', end: '17:00', calendar: 'holidays:ZZ', timezone: 'Mars/Olympus' },
      }),
    ).toThrow(
      expect.objectContaining({
        errors: {
          'delivery_window.timezone': ["unknown IANA timezone 'Mars/Olympus'"],
          'delivery_window.calendar': [
            "no calendar 'holidays:ZZ' in this account, nor a holidays region the server knows",
          ],
        },
      }),
    );
  });
});
