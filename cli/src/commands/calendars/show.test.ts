import { describe, expect, it } from 'vitest';
import { buildCalendarUpdate, datesOf } from './show.js';

describe('calendars flags', () => {
  it('reads --date and --dates together, and nothing when neither is given', () => {
    expect(datesOf({ date: ['2026-12-24'], dates: '2026-12-31, 2027-01-02' })).toEqual([
      '2026-12-24',
      '2026-12-31',
      '2027-01-02',
    ]);
    expect(datesOf({})).toBeUndefined();
  });

  it('builds an update of the given fields; --no-holidays clears them; nothing given is a usage error', () => {
    expect(buildCalendarUpdate({ name: 'Office', holidays: false })).toEqual({
      name: 'Office',
      holidays: null,
    });
    expect(buildCalendarUpdate({ holidays: 'DE-BY' })).toEqual({ holidays: 'DE-BY' });
    expect(() => buildCalendarUpdate({})).toThrow('give at least one of');
  });
});
