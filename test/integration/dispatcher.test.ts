import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deliveries } from '../../server/src/app/deliveries/deliver.js';
import type { JobQueue } from '../../server/src/jobs/queue.js';
import { Dispatcher } from '../../server/src/jobs/dispatcher.js';
import { createActionScheduler } from '../../server/src/jobs/scheduler.js';
import { insertAction } from '../../server/src/persistence/actions.js';
import { type Notifications, openNotifications } from '../../server/src/persistence/notifications.js';
import { openTestDatabase } from '../support/in-process.js';
import { manualClock } from '../support/manual-clock.js';
import { eventually } from '../support/wait.js';

// The dispatcher (jobs/dispatcher.ts) in-process on the clock port: it arms a timer for an attempt due within the
// window and fires it a claim's lead before its due time, by the test's clock, never by wall time.
describe('dispatcher (in-process, manual clock)', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let notifications: Notifications;
  let accountId: string;
  const T0 = new Date('2026-05-04T08:00:00.000Z');

  beforeAll(async () => {
    t = await openTestDatabase('dispatcher');
    accountId = await t.newAccount();
    notifications = await openNotifications(t.url);
  });
  afterAll(async () => {
    await notifications?.close();
    await t?.close();
  });

  it('fires an attempt due within the window from its timer, at its due time less the claim lead', async () => {
    const id = randomUUID();
    const due = new Date(T0.getTime() + 5_000);
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
    const manual = manualClock(T0);
    const fired: { id: string; at: number }[] = [];
    const deliveries = {
      async fire(actionId: string) {
        fired.push({ id: actionId, at: manual.clock().getTime() });
      },
      async sweepExpiredLeases() {},
    } as unknown as Deliveries;
    // No pg-boss here: the job path is not under test, and the window's jobs are written to nowhere.
    const queue = {
      work: async () => ({ stop: async () => undefined }),
      sendMany: async () => undefined,
      send: async () => null,
    } as unknown as JobQueue;
    const logger = { warn: () => undefined, error: () => undefined, info: () => undefined };
    const dispatcher = new Dispatcher({
      store: t.database,
      notifications,
      queue,
      scheduler: createActionScheduler(queue, manual.clock),
      deliveries,
      logger: logger as unknown as ConstructorParameters<typeof Dispatcher>[0]['logger'],
      clock: manual.clock,
      timers: manual.timers,
      limits: { total: 10, perAccount: 10 },
      scanIntervalMs: 3_600_000,
    });
    try {
      await dispatcher.start();
      // Armed from the start-up read of the window (and the first scan): one timer for the attempt, one for the scan.
      await eventually(async () => manual.pending() === 2);
      await manual.advance(4_989);
      expect(fired).toEqual([]);
      await manual.advance(1);
      await eventually(async () => fired.length === 1);
      expect(fired).toEqual([{ id, at: due.getTime() - 10 }]);
    } finally {
      await dispatcher.stop(1000);
    }
  });
});
