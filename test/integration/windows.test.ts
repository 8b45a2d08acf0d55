import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Deliveries } from '../../server/src/app/deliveries/deliver.js';
import { CircuitBreaker } from '../../server/src/app/destinations/breaker.js';
import type { ActionScheduler, Outbound, OutboundResult } from '../../server/src/app/ports.js';
import { createWaits } from '../../server/src/app/waits.js';
import { type ActionRow, insertAction, type NewAction } from '../../server/src/persistence/actions.js';
import { openTestDatabase } from '../support/in-process.js';

// Retries and recurrences under a delivery window, through the delivery use case in-process on a real PostgreSQL
// with a fake clock: the retry that would fall outside the window waits for its next opening, and a daily series
// with `calendar: holidays:US, outside: skip` skips the observed Independence Day.
describe('delivery windows in the delivery engine (in-process, fake clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  let now: Date;
  const scheduled: { id: string; at: Date }[] = [];
  const answers: OutboundResult[] = [];
  let deliveries: Deliveries;

  const response = (status: number): OutboundResult => ({
    kind: 'response',
    status,
    headers: {},
    bodyExcerpt: 'ok',
    bodyTruncated: false,
    durationMs: 5,
  });

  beforeAll(async () => {
    t = await openTestDatabase('windows');
    accountId = await t.newAccount();
    // No jitter: the retry waits are exactly their strategy's.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const clock = () => now;
    const outbound: Outbound = {
      async send() {
        const next = answers.shift();
        if (!next) throw new Error('no scripted answer left');
        return next;
      },
    };
    const scheduler: ActionScheduler = {
      async schedule(_tx, id, at) {
        scheduled.push({ id, at });
      },
      async announce(_tx, attempts) {
        for (const a of attempts) scheduled.push({ id: a.actionId, at: a.dueAt });
      },
    };
    deliveries = new Deliveries({
      store: t.database,
      breaker: new CircuitBreaker({
        store: t.database,
        clock,
        events: { record: async () => undefined },
        wakes: { wakeAt: async () => undefined },
      }),
      scheduler,
      callbacks: {
        async enqueue() {},
        async redeliver() {
          throw new Error('no callback is delivered here');
        },
      },
      outbound,
      clock,
      waits: createWaits(1),
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  async function newAction(at: Date, over: Partial<NewAction> = {}): Promise<string> {
    const id = randomUUID();
    await insertAction(t.database.sql, {
      id,
      traceparent: null,
      created_via: 'api',
      counted_occurrence: null,
      account_id: accountId,
      name: 'ping',
      description: null,
      mode: 'webhook',
      status: 'resolved',
      timezone: 'UTC',
      scheduled_for: at,
      next_attempt_at: at,
      idempotency_key: null,
      dedup_keys: [],
      max_attempts: 3,
      retry_strategy: 'exponential',
      request: { url: 'http://receiver.test/hook', method: 'POST', headers: {}, body: null },
      webhook_secret: null,
      callback_url: null,
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      recurrence_index: 0,
      gate: null,
      chain_id: null,
      chain_step_index: null,
      delivery_window: null,
      window_state: null,
      created_at: at,
      updated_at: at,
      ...over,
    });
    return id;
  }

  const row = (id: string): Promise<ActionRow> =>
    t.database.sql.selectFrom('actions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('a retry that would fall outside the window waits for its next opening', async () => {
    // Monday 2026-11-30, 16:59:30 UTC: the window closes at 17:00, the first retry would be at 17:00:30.
    now = new Date('2026-11-30T16:59:30.000Z');
    const id = await newAction(now, {
      delivery_window: { timezone: 'UTC', start: '09:00', end: '17:00', outside: 'defer' },
    });
    answers.push(response(503));
    await deliveries.fire(id);
    const r = await row(id);
    expect(r.status).toBe('resolved');
    expect(r.attempt_count).toBe(1);
    expect(r.next_attempt_at).toEqual(new Date('2026-12-01T09:00:00.000Z'));
    expect(r.window_state).toEqual({
      deferred: { from: '2026-11-30T17:00:30.000Z', to: '2026-12-01T09:00:00.000Z' },
      skipped: [],
    });
    expect(scheduled.at(-1)).toEqual({ id, at: new Date('2026-12-01T09:00:00.000Z') });

    // The retry schedule counts from there: the second retry waits its 5 minutes from the opening.
    now = new Date('2026-12-01T09:00:00.000Z');
    answers.push(response(503));
    await deliveries.fire(id);
    expect((await row(id)).next_attempt_at).toEqual(new Date('2026-12-01T09:05:00.000Z'));
  });

  it('a retry inside the window is not moved', async () => {
    now = new Date('2026-11-30T10:00:00.000Z');
    const id = await newAction(now, {
      delivery_window: { timezone: 'UTC', start: '09:00', end: '17:00', outside: 'defer' },
    });
    answers.push(response(500));
    await deliveries.fire(id);
    const r = await row(id);
    expect(r.next_attempt_at).toEqual(new Date('2026-11-30T10:01:00.000Z'));
    expect(r.window_state).toEqual({ deferred: null, skipped: [] });
  });

  it('a daily series with holidays:US and outside skip skips 2027-07-05 and goes on on the 6th', async () => {
    const first = new Date('2027-07-03T14:00:00.000Z'); // 10:00 in New York
    now = first;
    const id = await newAction(first, {
      timezone: 'America/New_York',
      recurrence: { frequency: 1, unit: 'd', end_type: 'never' },
      recurrence_anchor: first,
      delivery_window: {
        timezone: 'America/New_York',
        start: '09:00',
        end: '17:00',
        calendar: 'holidays:US',
        outside: 'skip',
      },
    });
    answers.push(response(200));
    await deliveries.fire(id);
    let r = await row(id);
    // 2027-07-04 (Independence Day) and 2027-07-05 (observed) are closed: the next run is the 6th.
    expect(r.next_attempt_at).toEqual(new Date('2027-07-06T14:00:00.000Z'));
    expect(r.scheduled_for).toEqual(new Date('2027-07-06T14:00:00.000Z'));
    expect(r.window_state?.skipped).toEqual(['2027-07-04T14:00:00.000Z', '2027-07-05T14:00:00.000Z']);
    now = new Date('2027-07-06T14:00:00.000Z');
    answers.push(response(200));
    await deliveries.fire(id);
    r = await row(id);
    expect(r.next_attempt_at).toEqual(new Date('2027-07-07T14:00:00.000Z'));
    expect(r.recurrence_count).toBe(2);
  });
});
