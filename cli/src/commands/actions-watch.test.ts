import type { Action } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { formatWatchEvent, watchAction, watchEvents } from './actions-watch.js';

const now = new Date('2030-01-01T12:00:00.000Z');

const executed: Action = {
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
const scheduled: Action = { ...executed, status: 'scheduled', executed_at: null, delivery_attempts: [] };
const retrying: Action = {
  ...executed,
  status: 'scheduled',
  delivery_attempts: executed.delivery_attempts!.slice(0, 1),
};

describe('watchEvents', () => {
  it('reports the first status, then new attempts (with code and lateness) and status changes, then the end', () => {
    expect(watchEvents(null, scheduled, now)).toEqual([
      { event: 'status', at: now.toISOString(), action_id: executed.id, from: null, to: 'scheduled' },
    ]);
    expect(watchEvents(scheduled, scheduled, now)).toEqual([]);
    expect(watchEvents(scheduled, retrying, now)).toEqual([
      expect.objectContaining({ event: 'attempt', attempt_number: 1, status_code: 503, lateness_ms: 12 }),
    ]);
    const last = watchEvents(retrying, executed, now);
    expect(last.map((e) => e.event)).toEqual(['attempt', 'status', 'end']);
    expect(last[0]).toMatchObject({
      attempt_number: 2,
      status_code: 200,
      outcome: 'success',
      lateness_ms: 5,
    });
    expect(last[2]).toMatchObject({ status: 'executed' });
  });

  it('formats one readable line per event', () => {
    const lines = watchEvents(null, executed, now).map(formatWatchEvent);
    expect(lines).toEqual([
      '2030-01-01T11:59:00.012Z  attempt 1: HTTP 503 (HTTP 503), retryable, 12 ms late, took 30 ms',
      '2030-01-01T11:59:00.405Z  attempt 2: HTTP 200, success, 5 ms late, took 7 ms',
      '2030-01-01T12:00:00.000Z  status executed',
      '2030-01-01T12:00:00.000Z  ended: executed',
    ]);
  });
});

describe('watchAction', () => {
  it('polls until the action ends and answers its last status', async () => {
    const readings = [scheduled, scheduled, retrying, { ...executed, status: 'failed' as const }];
    const events: string[] = [];
    let sleeps = 0;
    const status = await watchAction(
      { actions: { get: async () => readings.shift()! } } as never,
      executed.id,
      {
        intervalMs: 5,
        emit: (e) => events.push(e.event),
        sleep: async () => {
          sleeps += 1;
        },
      },
    );
    expect(status).toBe('failed');
    expect(sleeps).toBe(3);
    expect(events).toEqual(['status', 'attempt', 'attempt', 'status', 'end']);
  });
});
