import type { AlertRule } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { describeRule, ruleTable } from './show.js';

const rule: AlertRule = {
  id: '0b9e6f6c-3f0a-4a53-9d55-2a8f1f2c7e11',
  name: 'billing',
  enabled: true,
  events: ['action.failed', 'delivery.late'],
  filter: { destination_host: 'billing.example.com' },
  threshold: { count: 5, window: '10m' },
  channels: [
    { type: 'email', to: 'oncall@example.com' },
    { type: 'webhook', url: 'https://ops.example.com/alerts', signed: true },
  ],
  group_wait: '2m',
  repeat_every: '1h',
  late_after: '1m',
  state: { pending: 2, next_alert_at: '2026-11-25T10:02:00.000Z', last_alerted_at: null },
  recent_notifications: [
    {
      id: '51aa6f6c-3f0a-4a53-9d55-2a8f1f2c7e11',
      test: true,
      channel: 0,
      type: 'email',
      status: 'failed',
      count: 1,
      attempts: 3,
      error: 'SMTP 550',
      created_at: '2026-11-25T09:00:00.000Z',
      sent_at: null,
    },
  ],
  created_at: '2026-11-25T08:00:00.000Z',
  updated_at: '2026-11-25T08:00:00.000Z',
};

describe('sched alerts renderers', () => {
  it('shows a rule: its channels in words (never a secret), the threshold, the state and the last messages', () => {
    const text = describeRule(rule);
    expect(text).toContain('email oncall@example.com; webhook https://ops.example.com/alerts (signed)');
    expect(text).toContain('5 within 10m');
    expect(text).toContain('next_alert_at    2026-11-25T10:02:00.000Z');
    expect(text).toMatch(
      /recent messages\nCREATED_AT .*\n2026-11-25T09:00:00.000Z\s+email\s+failed\s+1\s+3\s+test\s+SMTP 550/,
    );
  });

  it('lists rules with their event and channel types', () => {
    const { rows, columns } = ruleTable([rule]);
    expect(columns).toContain('pending');
    expect(rows[0]).toMatchObject({
      events: 'action.failed,delivery.late',
      channels: 'email,webhook',
      pending: 2,
    });
  });
});
