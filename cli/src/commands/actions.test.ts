import type { Action, Quota } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { createdSummary, describeAction, relativeTime } from './actions.js';
import { describeQuota } from './quota.js';

const now = new Date('2030-01-01T12:00:00.000Z');

const action: Action = {
  id: '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11',
  name: 'ping',
  description: null,
  mode: 'webhook',
  status: 'executed',
  timezone: 'UTC',
  scheduled_for: '2030-01-01T11:59:00.000Z',
  next_attempt_at: null,
  executed_at: '2030-01-01T11:59:00.412Z',
  idempotency_key: null,
  dedup_keys: ['order:1'],
  attempt_count: 2,
  max_attempts: 3,
  retry_strategy: 'exponential',
  manual_retry_count: 0,
  is_recurring: false,
  recurrence: null,
  recurrence_count: 0,
  last_executed_at: null,
  request: { url: 'https://example.com/hook', method: 'POST', headers: {} },
  callback_url: null,
  signed: true,
  coordination: null,
  gate: null,
  delivery_attempts: [
    {
      id: 'a1',
      attempt_number: 1,
      due_at: '2030-01-01T11:59:00.000Z',
      started_at: '2030-01-01T11:59:00.012Z',
      lateness_ms: 12,
      duration_ms: 30,
      status_code: 503,
      outcome: 'retryable',
      error: 'HTTP 503',
      response_excerpt: null,
      response_truncated: false,
    },
    {
      id: 'a2',
      attempt_number: 2,
      due_at: '2030-01-01T11:59:00.400Z',
      started_at: '2030-01-01T11:59:00.405Z',
      lateness_ms: 5,
      duration_ms: 7,
      status_code: 200,
      outcome: 'success',
      error: null,
      response_excerpt: 'ok',
      response_truncated: false,
    },
  ],
  reminder_events: [],
  recipients: [],
  last_error: null,
  created_at: '2030-01-01T11:58:00.000Z',
  updated_at: '2030-01-01T11:59:00.412Z',
};

describe('relativeTime', () => {
  it('shows the two largest units, ahead or behind', () => {
    expect(relativeTime('2030-01-01T12:10:00.000Z', now)).toBe('in 10m');
    expect(relativeTime('2030-01-01T12:09:59.600Z', now)).toBe('in 10m');
    expect(relativeTime('2030-01-02T15:04:05.000Z', now)).toBe('in 1d 3h');
    expect(relativeTime('2030-01-01T11:58:30.000Z', now)).toBe('1m 30s ago');
    expect(relativeTime('2030-01-01T12:00:00.200Z', now)).toBe('now');
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
  });
});
