import { describe, expect, it } from 'vitest';
import { quietEnd } from './quiet.js';
import { NO_CLOSED_DAYS } from './window.js';

const at = (iso: string) => new Date(iso);

describe('quietEnd', () => {
  const nights = { timezone: 'Europe/Paris', start: '22:00', end: '07:00' };

  it('answers the instant itself outside quiet hours', () => {
    expect(quietEnd(nights, at('2026-11-30T12:00:00Z'), NO_CLOSED_DAYS)).toEqual(at('2026-11-30T12:00:00Z'));
  });

  it('holds a message sent at night until the morning, in the quiet hours time zone', () => {
    // 03:00 in Paris (CET): quiet until 07:00 CET = 06:00 UTC.
    expect(quietEnd(nights, at('2026-12-01T02:00:00Z'), NO_CLOSED_DAYS)).toEqual(at('2026-12-01T06:00:00Z'));
  });

  it('keeps a calendar day quiet all day, and walks into the next night', () => {
    const weekendQuiet = { timezone: 'UTC', days: ['sat', 'sun'] as const, start: '00:00', end: '00:00' };
    // Friday 2026-12-25 is closed: quiet from then through the weekend to Monday 00:00.
    expect(quietEnd(weekendQuiet, at('2026-12-25T10:00:00Z'), (d) => d === '2026-12-25')).toEqual(
      at('2026-12-28T00:00:00Z'),
    );
  });
});
