import type { Action } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { formatWatchEvent, watchAction, watchEvents } from './actions-watch.js';
import { deliveredAction } from './fixtures.test-support.js';

const now = new Date('2030-01-01T12:00:00.000Z');

const executed = deliveredAction;
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

  it('says when the next attempt is after a retryable one, and what resolved means', () => {
    const waiting: Action = { ...retrying, status: 'resolved', next_attempt_at: '2030-01-01T12:05:00.000Z' };
    const lines = watchEvents(scheduled, waiting, now).map(formatWatchEvent);
    expect(lines).toEqual([
      '2030-01-01T11:59:00.012Z  attempt 1: HTTP 503 (HTTP 503), retryable, 12 ms late, took 30 ms',
      '2030-01-01T12:00:00.000Z  status scheduled -> resolved (due within a minute, a worker holds it)',
      '2030-01-01T12:00:00.000Z  next attempt at 2030-01-01T12:05:00.000Z (in 5m)',
    ]);
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
