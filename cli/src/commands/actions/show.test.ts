import type { Quota } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { createdSummary, describeAction, relativeTime } from './show.js';
import { deliveredAction } from '../fixtures.test-support.js';
import { describeQuota } from '../quota.js';

const now = new Date('2030-01-01T12:00:00.000Z');

const action = deliveredAction;

describe('relativeTime', () => {
  it('shows the two largest units, ahead or behind', () => {
    expect(relativeTime('2030-01-01T12:10:00.000Z', now)).toBe('in 10m');
    expect(relativeTime('2030-01-01T12:09:59.600Z', now)).toBe('in 10m');
    expect(relativeTime('2030-01-02T15:04:05.000Z', now)).toBe('in 1d 3h');
    expect(relativeTime('2030-01-01T11:58:30.000Z', now)).toBe('1m 30s ago');
    expect(relativeTime('2030-01-01T12:00:00.200Z', now)).toBe('now');
    // The second unit is rounded: a week that began a second ago is still "7d".
    expect(relativeTime('2030-01-08T11:59:59.000Z', now)).toBe('in 7d');
    expect(relativeTime('2030-01-02T11:59:40.000Z', now)).toBe('in 1d');
    expect(relativeTime('2030-01-02T11:29:00.000Z', now)).toBe('in 23h 29m');
  });
});

describe('describeAction', () => {
  it('lists the fields, then one row per delivery attempt', () => {
    const text = describeAction(action, now);
    expect(text).toMatch(/^id +6f1c2a52-/m);
    expect(text).toMatch(/^status +executed$/m);
    expect(text).toMatch(/^request +POST https:\/\/example.com\/hook$/m);
    expect(text).toMatch(/^attempts +2 of 3 \(exponential retries\)$/m);
    expect(text).toMatch(/^description +-$/m);
    expect(text).toMatch(/ATTEMPT +STARTED_AT +LATENESS_MS +STATUS_CODE +OUTCOME +ERROR/);
    expect(text).toMatch(/1 +2030-01-01T11:59:00.012Z +12 +503 +retryable +HTTP 503/);
    expect(text).toMatch(/2 +2030-01-01T11:59:00.405Z +5 +200 +success +-/);
  });

  it('says when nothing was attempted yet and describes recurrence', () => {
    const text = describeAction(
      {
        ...action,
        delivery_attempts: [],
        recurrence: { frequency: 2, unit: 'h', end_type: 'count', max_occurrences: 5 },
        recurrence_count: 1,
      },
      now,
    );
    expect(text).toContain('delivery attempts:\n  none yet');
    expect(text).toMatch(/^repeats +every 2 hours, 5 times \(1 so far\)$/m);
  });
});

describe('createdSummary', () => {
  it('shows id, status and when it fires', () => {
    const text = createdSummary(
      { ...action, status: 'scheduled', scheduled_for: '2030-01-01T12:10:00.000Z' },
      now,
    );
    expect(text.split('\n')[0]).toBe(`scheduled action ${action.id}`);
    expect(text).toMatch(/status +scheduled/);
    expect(text).toMatch(/scheduled_for +2030-01-01T12:10:00.000Z \(in 10m\)/);
  });
});

describe('describeQuota', () => {
  it('shows used and limit per resource, unlimited for null', () => {
    const quota: Quota = {
      period: { year: 2030, month: 1, month_name: 'January' },
      actions: { used: 3, limit: null },
      sms: { used: 0, limit: 200 },
      emails: { used: 1, limit: 1000 },
      chat_messages: { used: 0, limit: 0 },
      team_members: { used: 2, limit: 10 },
      ai_suggestions: { used: 0, limit: 100, percentage: 0 },
      plan: 'pro',
      limits: {
        max_attempts: 10,
        schedule_horizon_days: 365,
        retention_days: 365,
        max_recipients: 10,
        templates: 25,
        chains: false,
        slack_teams: false,
      },
      resets_at: '2030-02-01T00:00:00.000Z',
    };
    const text = describeQuota(quota);
    expect(text.split('\n')[0]).toBe('plan pro, January 2030; resets 2030-02-01T00:00:00.000Z');
    expect(text).toMatch(/actions +3 +unlimited/);
    expect(text).toMatch(/sms +0 +200/);
    expect(text).toMatch(/team_members +2 +10/);
    expect(text).toMatch(/history 365 days/);
    // A field of the spec's quota answer for a feature sched does not have: the API keeps it, the CLI hides it.
    expect(text).not.toContain('ai_suggestions');
  });
});
