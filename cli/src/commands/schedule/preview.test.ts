import { describe, expect, it } from 'vitest';
import { buildPreviewBody, describePreview } from './preview.js';

describe('sched schedule preview', () => {
  it('takes the schedule flags of actions create, the DST policy and the count', () => {
    expect(
      buildPreviewBody({
        at: '2027-03-12T02:30:00',
        timezone: 'America/New_York',
        every: '1d',
        times: '5',
        dstGap: 'skip',
        count: '3',
      }),
    ).toEqual({
      scheduled_for: '2027-03-12T02:30:00',
      timezone: 'America/New_York',
      recurrence: { frequency: 1, unit: 'd', end_type: 'count', max_occurrences: 5 },
      dst_policy: { gap: 'skip', fold: 'first' },
      count: 3,
    });
    expect(() => buildPreviewBody({ in: '1h', dstFold: 'both' })).toThrow(
      '--dst-gap and --dst-fold need --every',
    );
    expect(() => buildPreviewBody({ at: '2027-03-12T02:30:00', every: '1d', dstGap: 'sideways' })).toThrow(
      '--dst-gap',
    );
  });

  it('prints a table of runs and the warnings', () => {
    const text = describePreview({
      timezone: 'America/New_York',
      tzdata: '2025b',
      occurrences: [
        {
          at: '2027-03-14T07:30:00.000Z',
          local: '2027-03-14T03:30:00',
          offset: '-04:00',
          dst: 'gap_shifted',
          window: null,
          due: null,
        },
      ],
      warnings: ['2027-03-14T02:30 does not exist in America/New_York; shifted to 03:30'],
    });
    expect(text).toContain('America/New_York (tzdata 2025b)');
    expect(text).toMatch(/2027-03-14T07:30:00.000Z\s+2027-03-14T03:30:00\s+-04:00\s+gap_shifted/);
    expect(text).toContain('warning: 2027-03-14T02:30 does not exist in America/New_York; shifted to 03:30');
  });
});
