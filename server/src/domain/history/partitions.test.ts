import { describe, expect, it } from 'vitest';
import { historyCutoff, monthStart, monthsAhead, partitionPlan } from './partitions.js';

const d = (s: string) => new Date(s);

describe('attempt partitions by month', () => {
  it('starts months in UTC, across a year end', () => {
    expect(monthStart(d('2026-12-31T23:59:59.999Z'))).toEqual(d('2026-12-01T00:00:00Z'));
    expect(monthStart(d('2026-12-31T23:59:59.999Z'), 1)).toEqual(d('2027-01-01T00:00:00Z'));
    expect(monthStart(d('2027-01-01T00:00:00Z'), -1)).toEqual(d('2026-12-01T00:00:00Z'));
  });

  it('keeps this month and the next two', () => {
    expect(monthsAhead(d('2026-11-30T23:00:00Z'))).toEqual([
      d('2026-11-01T00:00:00Z'),
      d('2026-12-01T00:00:00Z'),
      d('2027-01-01T00:00:00Z'),
    ]);
  });

  it('creates only the missing months ahead, and is a no-op once they exist', () => {
    const now = d('2026-11-28T12:00:00Z');
    const plan = partitionPlan(now, [d('2026-11-01T00:00:00Z')], 365);
    expect(plan.create).toEqual([d('2026-12-01T00:00:00Z'), d('2027-01-01T00:00:00Z')]);
    expect(partitionPlan(now, [...plan.create, d('2026-11-01T00:00:00Z')], 365)).toEqual({
      create: [],
      drop: [],
    });
  });

  it('drops a month only once its last millisecond is past the longest retention', () => {
    const months = [d('2025-10-01T00:00:00Z'), d('2025-11-01T00:00:00Z'), d('2025-12-01T00:00:00Z')];
    // 365 days before 2026-11-28 is 2025-11-28: October is wholly past, November is not.
    expect(partitionPlan(d('2026-11-28T00:00:00Z'), months, 365).drop).toEqual([d('2025-10-01T00:00:00Z')]);
    // The instant November's end is 365 days old, it goes too.
    expect(partitionPlan(d('2026-12-01T00:00:00Z'), months, 365).drop).toEqual([
      d('2025-10-01T00:00:00Z'),
      d('2025-11-01T00:00:00Z'),
    ]);
    expect(partitionPlan(d('2026-11-30T23:59:59.999Z'), months, 365).drop).toEqual([
      d('2025-10-01T00:00:00Z'),
    ]);
  });

  it('never drops a month ahead or the current one', () => {
    const now = d('2026-11-28T00:00:00Z');
    expect(partitionPlan(now, monthsAhead(now), 0).drop).toEqual([]);
  });

  it('purges the longest-retention history only once its month of attempts is dropped, a shorter one on the day', () => {
    const now = d('2026-11-28T12:00:00Z');
    // 365 days back is 2025-11-28: November 2025 is still kept, so actions that ended before its start go.
    expect(historyCutoff(now, 365, 365)).toEqual(d('2025-11-01T00:00:00Z'));
    const dropped = partitionPlan(now, [d('2025-10-01T00:00:00Z'), d('2025-11-01T00:00:00Z')], 365).drop;
    expect(dropped).toEqual([d('2025-10-01T00:00:00Z')]);
    expect(historyCutoff(now, 30, 365)).toEqual(d('2026-10-29T12:00:00Z'));
  });
});
