import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliveries } from '../../server/src/app/deliveries/deliver.js';
import { CircuitBreaker } from '../../server/src/app/destinations/breaker.js';
import type { Outbound } from '../../server/src/app/ports.js';
import { createWaits } from '../../server/src/app/waits.js';
import { Dispatcher } from '../../server/src/jobs/dispatcher.js';
import { createActionScheduler } from '../../server/src/jobs/scheduler.js';
import { insertAction } from '../../server/src/persistence/actions.js';
import { type Notifications, openNotifications } from '../../server/src/persistence/notifications.js';
import { ownerSlot } from '../../server/src/persistence/workers.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { manualClock } from '../support/manual-clock.js';
import { eventually } from '../support/wait.js';

// The dispatcher (jobs/dispatcher.ts) and its firing loop (app/deliveries/firing.ts) in-process on the clock port and
// a real PostgreSQL: a worker claims an attempt from the due index a claim's lead before its due time and sends it at
// that time, by the test's clock; two workers each claim only their own share, and neither claims for nothing.
describe('dispatcher (in-process, manual clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  const T0 = new Date('2026-05-04T08:00:00.000Z');
  const logger = { warn: () => undefined, error: () => undefined, info: () => undefined };

  beforeAll(async () => {
    t = await openTestDatabase('dispatcher');
    accountId = await t.newAccount();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function dueAction(due: Date): Promise<string> {
    const id = randomUUID();
    await insertAction(t.database.sql, {
      id,
      account_id: accountId,
      name: 'timed',
      description: null,
      mode: 'webhook',
      status: 'resolved',
      timezone: 'UTC',
      scheduled_for: due,
      next_attempt_at: due,
      idempotency_key: null,
      traceparent: null,
      created_via: 'api',
      counted_occurrence: null,
      dedup_keys: [],
      max_attempts: 3,
      retry_strategy: 'exponential',
      request: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {} },
      webhook_secret: null,
      callback_url: null,
      coordination: null,
      recurrence: null,
      recurrence_anchor: null,
      gate: null,
      chain_id: null,
      chain_step_index: null,
      created_at: T0,
      updated_at: T0,
    });
    return id;
  }

  /** A worker: its LISTEN connection with the member lock, its deliveries on `manual`, and what it sent and claimed. */
  async function worker(manual: ReturnType<typeof manualClock>) {
    const notifications: Notifications = await openNotifications(t.url, { member: true });
    const sent: { id: string; at: number }[] = [];
    const claims = { statements: 0, empty: 0, attempts: 0 };
    const outbound: Outbound = {
      async send(req) {
        sent.push({ id: req.headers['x-sched-action-id']!, at: manual.clock().getTime() });
        return {
          kind: 'response',
          status: 200,
          headers: {},
          bodyExcerpt: '',
          bodyTruncated: false,
          durationMs: 1,
        };
      },
    };
    const scheduler = createActionScheduler(manual.clock);
    const deliveries = new Deliveries({
      store: t.database,
      breaker: new CircuitBreaker({
        store: t.database,
        clock: manual.clock,
        events: { record: async () => undefined },
        wakes: { wakeAt: async () => undefined },
      }),
      scheduler,
      callbacks: { enqueue: async () => undefined, redeliver: async () => undefined },
      outbound,
      clock: manual.clock,
      timers: manual.timers,
      waits: createWaits(1),
    });
    const claimShare = deliveries.claimShare.bind(deliveries);
    deliveries.claimShare = async (c) => {
      const found = await claimShare(c);
      claims.statements += 1;
      claims.attempts += found.claimed.length;
      if (found.claimed.length === 0 && found.careful.length === 0) claims.empty += 1;
      return found;
    };
    const dispatcher = new Dispatcher({
      store: t.database,
      notifications,
      scheduler,
      deliveries,
      logger: logger as unknown as ConstructorParameters<typeof Dispatcher>[0]['logger'],
      clock: manual.clock,
      timers: manual.timers,
      limits: { total: 50, perAccount: 50 },
      scanIntervalMs: 3_600_000,
    });
    return {
      notifications,
      dispatcher,
      sent,
      claims,
      async stop() {
        await dispatcher.stop(1000);
        await notifications.close();
      },
    };
  }

  it('claims an attempt a claim lead before its due time and sends it at that time, by the clock port', async () => {
    const due = new Date(T0.getTime() + 5_000);
    const id = await dueAction(due);
    const manual = manualClock(T0);
    const w = await worker(manual);
    try {
      await w.dispatcher.start();
      // Armed from the scan's reading of the due index: one wake-up for the attempt, one for the next scan. Nothing is
      // claimed before anything is due.
      await eventually(async () => manual.pending() === 2);
      await manual.advance(4_989);
      expect(w.claims.statements).toBe(0);
      await manual.advance(1);
      await eventually(async () => w.claims.attempts === 1);
      expect(w.claims).toEqual({ statements: 1, empty: 0, attempts: 1 });
      const [row] = await rawQuery<{ status: string }>(
        t.database.sql,
        'select status from actions where id = $1',
        [id],
      );
      expect(row!.status).toBe('executing');
      // Claimed 10 ms ahead; the request leaves at the due time, never before.
      expect(w.sent).toEqual([]);
      await manual.advance(10);
      await eventually(async () => w.sent.length === 1);
      expect(w.sent).toEqual([{ id, at: due.getTime() }]);
      await eventually(async () => {
        const [done] = await rawQuery<{ status: string }>(
          t.database.sql,
          'select status from actions where id = $1',
          [id],
        );
        return done!.status === 'executed';
      });
    } finally {
      await w.stop();
    }
  });

  it('two workers each claim their own share of a burst, in batches, with no empty claim and no attempt twice', async () => {
    const at = new Date(T0.getTime() + 60_000);
    const ids = await Promise.all(Array.from({ length: 40 }, () => dueAction(at)));
    const manual = manualClock(new Date(at.getTime() - 2_000));
    const [a, b] = [await worker(manual), await worker(manual)];
    try {
      await a.dispatcher.start();
      await b.dispatcher.start();
      // Each reads the live workers (two) and takes its slot; neither has anything due yet, so neither claims.
      await eventually(async () => manual.pending() >= 4);
      await manual.advance(2_100);
      await eventually(async () => a.sent.length + b.sent.length === 40);
      const members = [a.notifications.member()!, b.notifications.member()!].sort((x, y) => x - y);
      for (const [w, member] of [
        [a, a.notifications.member()!],
        [b, b.notifications.member()!],
      ] as const) {
        const slot = members.indexOf(member);
        expect(w.sent.every((s) => ownerSlot(s.id, 2) === slot)).toBe(true);
      }
      expect(new Set([...a.sent, ...b.sent].map((s) => s.id))).toEqual(new Set(ids));
      // One claim statement per worker for the whole burst: every attempt it claimed was its own, none was missed.
      expect(a.claims.attempts + b.claims.attempts).toBe(40);
      expect(a.claims.statements + b.claims.statements).toBe(2);
      expect(a.claims.empty + b.claims.empty).toBe(0);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
